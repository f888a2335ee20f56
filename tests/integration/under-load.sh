#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# under-load.sh [-n RUNS] [TEST...]: runs integration tests RUNS times
# (default 5) while two busy loops compete for the CPUs, and prints for each
# test how many runs passed.  Default tests: the reachability ones
# (tests-verdicts.sh).  Exit status 1 when any run failed.
HERE=$(cd "$(dirname "$0")" && pwd)
runs=5
if [ "${1:-}" = -n ]; then
	runs=$2
	shift 2
fi
tests=("$@")
[ ${#tests[@]} -gt 0 ] ||
	mapfile -t tests < <(sed -n 's/^t_\(verdict_[a-z_]*\)() {$/\1/p' "$HERE/tests-verdicts.sh" | tr _ -)
busy() { while :; do :; done; }
busy & b1=$!
busy & b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT
bad=0
for t in "${tests[@]}"; do
	ok=0
	for ((i = 0; i < runs; i++)); do
		out=$("$HERE/run-tests.sh" "$t")
		if grep -q '^1 passed, 0 failed' <<<"$out"; then
			ok=$((ok + 1))
		else
			sed 's/^/    /' <<<"$out" | head -20 # why it failed
		fi
	done
	echo "$t: $ok/$runs passed"
	[ $ok -eq "$runs" ] || bad=1
done
exit $bad
