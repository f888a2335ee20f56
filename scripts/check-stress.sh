#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-stress.sh - run the integration suite N times (default 5) with
# CPU-bound busy loops beside it (default 2), each run with a fresh
# TEST_SEED, and report every failure with its seed and the directory its
# test left behind.  A suite that passes here does not depend on speed.
#
# Usage: scripts/check-stress.sh [N] [TEST...]      (make check-stress N=5)
# Environment: STRESS_LOAD (busy loops, default 2), STRESS_DIR (where run
# logs and failing tests' directories go; default a new /tmp/mtrace-stress.*),
# and what tests/integration/run-tests.sh reads (TEST_JOBS, RUN_TIMEOUT).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
shift $(($# > 0 ? 1 : 0))
load=${STRESS_LOAD:-2}
dir=${STRESS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mtrace-stress.XXXXXX")}
mkdir -p "$dir"

busy=()
stop_busy() {
	local p
	for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${busy[@]}"; do wait "$p" 2>/dev/null; done
	busy=()
}
trap stop_busy EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < load; i++)); do
	(while :; do :; done) &
	busy+=($!)
done

echo "check-stress: $runs runs of the integration suite beside $load busy loops;" \
	"logs in $dir"
flakes=()
for ((r = 1; r <= runs; r++)); do
	seed=$((RANDOM * 32768 + RANDOM))
	mkdir -p "$dir/run-$r"
	start=$SECONDS
	TMPDIR=$dir/run-$r TEST_SEED=$seed "$top/tests/integration/run-tests.sh" "$@" \
		>"$dir/run-$r.log" 2>&1
	st=$?
	summary=$(tail -n 1 "$dir/run-$r.log")
	echo "run $r: $summary ($((SECONDS - start)) s, TEST_SEED=$seed," \
		"load $(cut -d' ' -f1-3 /proc/loadavg))"
	while read -r name; do
		kept=$(awk -v n="$name" '$1 == "FAIL:" && $2 == n { f = 1 } f && /files kept in/ { print $NF; exit }' \
			"$dir/run-$r.log")
		flakes+=("$name (run $r, TEST_SEED=$seed, files: ${kept:-none})")
		echo "  FAIL: $name; output in $dir/run-$r.log, files in ${kept:-(none)}"
	done < <(awk '$1 == "FAIL:" { print $2 }' "$dir/run-$r.log")
	if [ $st -ne 0 ] && ! grep -q '^FAIL:' "$dir/run-$r.log"; then
		flakes+=("the runner itself (run $r, status $st)")
		echo "  the runner failed (status $st): see $dir/run-$r.log"
	fi
	# Passing runs leave nothing behind but their log.
	rmdir "$dir/run-$r" 2>/dev/null
done
stop_busy

if [ ${#flakes[@]} -eq 0 ]; then
	echo "check-stress: $runs of $runs runs passed"
	exit 0
fi
echo "check-stress: ${#flakes[@]} failure(s) in $runs runs:"
printf '  %s\n' "${flakes[@]}"
echo "again: TEST_SEED=<seed> tests/integration/run-tests.sh <test>"
exit 1
