#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# identical.sh OLDBIN NEWBIN [LOG-OR-DIR]... - two builds of mtrace-check
# print the same bytes.
#
# For a change that must not change what the checker prints (a refactor:
# issue 27's findings model and layer folders): every log found is checked
# by both binaries with every output option - the text report, --json,
# --folded (each view), --html (the page written), the class options
# (--show-reachable, --fail-on, --suppressions), several logs at once and
# standard input - and standard output, standard error, the exit status
# and any file written must be byte-identical.  Paths in the outputs are
# the same for both (each run is given the same names).
#
# Logs: the files under the directories given, or by default the logs the
# test suites leave behind (tests/checker/out, tests/html/out,
# tests/html/logs, kept integration directories).  Files that are not logs
# (programs, JSON, reports) are checked too: their error paths must match.
# Files over IDENTICAL_MAX_KB (default 20000) are left out: the check is
# about bytes, not speed.
#
# Prints one line per difference and "N passed, N failed" at the end;
# status 1 when anything differs.
#
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 OLDBIN NEWBIN [LOG-OR-DIR]..." >&2
	exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
MAX_KB=${IDENTICAL_MAX_KB:-20000}
if [ $# -eq 0 ]; then
	set -- "$top/tests/checker/out" "$top/tests/html/out" "$top/tests/html/logs"
	for d in /tmp/mtrace-it.*; do [ -d "$d" ] && set -- "$@" "$d"; done
fi

work=$(mktemp -d /tmp/identical.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/new"

# A suppression file whose patterns match frames common in the test logs.
cat >"$work/s.supp" <<'EOF'
leak:main
leak:xmalloc
EOF

logs=()
while IFS= read -r -d '' f; do
	logs+=("$f")
done < <(find -L "$@" -type f -size -"${MAX_KB}"k -print0 2>/dev/null | sort -z)

pass=0
fail=0

# run SIDE BIN ARGS...: in the side's directory (so --html writes there),
# stdin from $STDIN (default /dev/null).
run() {
	local side=$1 bin=$2
	shift 2
	(cd "$work/$side" && rm -f page.html &&
	 env ${THREADS:+MTRACE_CHECK_THREADS=$THREADS} timeout 120 "$bin" --quiet "$@" \
		<"${STDIN:-/dev/null}" >out 2>err
	 echo $? >rc)
}

# same DESCRIPTION ARGS...: both binaries, everything compared.
same() {
	local what=$1
	shift
	run old "$OLD" "$@"
	run new "$NEW" "$@"
	local f
	for f in out err rc page.html; do
		if [ -e "$work/old/$f" ] || [ -e "$work/new/$f" ]; then
			if ! cmp -s "$work/old/$f" "$work/new/$f"; then
				fail=$((fail + 1))
				echo "DIFF ($f): $what: $*"
				return
			fi
		fi
	done
	pass=$((pass + 1))
}

n=0
for log in "${logs[@]}"; do
	n=$((n + 1))
	same text "$log"
	same json --json "$log"
	same folded --folded "$log"
	same folded-peak --folded=peak "$log"
	same folded-all --folded=all "$log"
	same html --html page.html "$log"
	same html+json --json --html page.html "$log"
	# Class options: only logs with verdicts answer them differently.
	if grep -aqs '^#C ' "$log"; then
		same reachable --show-reachable "$log"
		same reachable-json --json --show-reachable "$log"
		same fail-on --fail-on=all "$log"
		same fail-on-json --json --fail-on=definite,possible "$log"
		same supp --suppressions "$work/s.supp" "$log"
		same supp-json --json --suppressions "$work/s.supp" "$log"
		same supp-html --suppressions "$work/s.supp" --html page.html "$log"
		same folded-supp --folded --suppressions "$work/s.supp" "$log"
	fi
	STDIN=$log same stdin -
	STDIN=$log same stdin-json --json -
	THREADS=0 same serial "$log"
	THREADS=0 same serial-json --json "$log"
done

# Several logs at once, text and JSON, in groups of four.
for ((i = 0; i + 3 < ${#logs[@]}; i += 4)); do
	same multi "${logs[@]:i:4}"
	same multi-json --json "${logs[@]:i:4}"
done

echo "identical.sh: $n files checked"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
