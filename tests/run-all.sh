#!/usr/bin/env bash
# Runs every test suite (each directory's "make check"), shows its output,
# and ends with one line counting all tests: "N passed, N failed".
# Check suites report "Checks: N, Failures: F, Errors: E"; the shell-driven
# suites report "N passed, N failed".  GPL-3.0-or-later.
set -u
cd "$(dirname "$0")"
total_pass=0 total_fail=0 broken=()
for suite in "$@"; do
	[ -f "$suite/Makefile" ] || continue
	out=$(mktemp)
	make --no-print-directory -C "$suite" check 2>&1 | tee "$out"
	status=${PIPESTATUS[0]}
	read -r p f < <(awk '
		/Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
			gsub(/[,%:]/, " "); for (i = 1; i < NF; i++) {
				if ($i == "Checks") c = $(i + 1)
				if ($i == "Failures") x = $(i + 1)
				if ($i == "Errors") y = $(i + 1)
			}
			pass += c - x - y; fail += x + y
		}
		/^(checker comparison: )?[0-9]+ passed, [0-9]+ failed/ {
			sub(/^checker comparison: /, ""); pass += $1; fail += $3
		}
		/^fuzz: no crash/ { pass += 1 }
		END { print pass + 0, fail + 0 }' "$out")
	rm -f "$out"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	if [ "$status" -ne 0 ]; then
		broken+=("$suite")
		[ "$f" -gt 0 ] || total_fail=$((total_fail + 1))   # it failed to run
	fi
done
[ ${#broken[@]} -eq 0 ] || echo "failing suites: ${broken[*]}"
echo "$total_pass passed, $total_fail failed"
[ ${#broken[@]} -eq 0 ]
