# SPDX-License-Identifier: GPL-3.0-or-later
# wait.sh - sourced by the integration and report suites.
# wait_for CMD...: a readiness check, not a delay: run CMD every 50 ms
# until it succeeds (status 0 at once on a fast machine); status 1 after
# RUN_TIMEOUT seconds (set by the suite before it calls this).
wait_for() {
	local deadline=$((SECONDS + RUN_TIMEOUT))
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.05
	done
}
