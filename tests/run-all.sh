#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every test suite (each directory's "make check"), shows its output,
# and ends with one line counting all tests: "N passed, N failed".
# Usage: run-all.sh SUITE...  where SUITE is a directory, or DIR:TARGET to
# run another target than check (checker:unit).
# Check suites report "Checks: N, Failures: F, Errors: E"; the shell-driven
# suites report "N passed, N failed".
#
# The suites are built one after the other, then run at the same time
# (their tests mostly wait on subprocesses; SUITE_JOBS=1 runs them one
# by one); each suite's output is shown whole, in the order given, with the
# time it took.
set -u
cd "$(dirname "$0")"
total_pass=0 total_fail=0 broken=()
suites=()
for suite in "$@"; do
	[ -f "${suite%%:*}/Makefile" ] && suites+=("$suite")
done

# count FILE: "PASSED FAILED" from a suite's output.
count() {
	awk '
		/(^|[ %:])Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
			c = x = y = 0
			gsub(/[,%:]/, " "); for (i = 1; i < NF; i++) {
				if ($i == "Checks") c = $(i + 1)
				if ($i == "Failures") x = $(i + 1)
				if ($i == "Errors") y = $(i + 1)
			}
			pass += c - x - y; fail += x + y
		}
		/^(checker [a-z]+: )?[0-9]+ passed, [0-9]+ failed/ {
			sub(/^checker [a-z]+: /, ""); pass += $1; fail += $3
		}
		/^fuzz: no crash/ { pass += 1 }
		END { print pass + 0, fail + 0 }' "$1"
}

out=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-run-all.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Build first: the suites share libmtrace and mtrace-check, and two makes
# must not build them at once.
jobs=$(nproc 2>/dev/null || echo 2)
for suite in "${suites[@]}"; do
	make --no-print-directory -j"$jobs" -C "${suite%%:*}" all >"$out/$suite.build" 2>&1
done

# run SUITE: its check target; output in $out/SUITE.out, status in .rc.
run() {
	local start=$SECONDS st target=check
	[[ $1 != *:* ]] || target=${1#*:}
	{
		cat "$out/$1.build"
		make --no-print-directory -C "${1%%:*}" "$target" 2>&1
		st=$?
		# times, the builtin (in this shell, not a $(...) subshell): the
		# second line is the CPU time (user, system) of its children.
		times >"$out/$1.times"
		echo "($1: $((SECONDS - start)) s, $(awk 'END {
			split($1, u, /[ms]/); split($2, s, /[ms]/)
			printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$out/$1.times") s of CPU)"
	} >"$out/$1.out"
	echo $st >"$out/$1.rc"
}

for suite in "${suites[@]}"; do
	if [ "${SUITE_JOBS:-all}" = 1 ]; then
		run "$suite"
	else
		run "$suite" &
	fi
done
for suite in "${suites[@]}"; do
	while [ ! -e "$out/$suite.rc" ]; do
		if [ -z "$(jobs -pr)" ] && [ ! -e "$out/$suite.rc" ]; then
			echo "$suite: did not finish" >>"$out/$suite.out"
			echo 1 >"$out/$suite.rc"
		fi
		wait -n 2>/dev/null || sleep 0.2
	done
	cat "$out/$suite.out"
	status=$(cat "$out/$suite.rc")
	read -r p f < <(count "$out/$suite.out")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$status" -ne 0 ]; then
		broken+=("$suite")
		[ "$f" -gt 0 ] || total_fail=$((total_fail + 1)) # it failed to run
	fi
done
wait
[ ${#broken[@]} -eq 0 ] || echo "failing suites: ${broken[*]}"
echo "$total_pass passed, $total_fail failed"
[ ${#broken[@]} -eq 0 ]
