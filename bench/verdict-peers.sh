#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# verdict-peers.sh - libmtrace's leak classes on real programs next to
# valgrind --leak-check=full and LeakSanitizer (liblsan.so.0 preloaded):
# python3, perl, bash, git, gcc -O2 -c and sqlite3, every process of each
# (gcc runs cc1 and as).  Prints one row per process and tool: definitely /
# indirectly / possibly lost and still reachable, "bytes/blocks" (LSan has
# no possibly lost or still reachable classes; its interior pointers count
# as pointers).  Slow: valgrind runs cc1 for minutes.
#
# Usage: bench/verdict-peers.sh [PROGRAM...]   (default: all six)
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIB=$ROOT/libmtrace/libmtrace.so
CHECK=$ROOT/mtrace-check/mtrace-check
LSAN=/usr/lib/x86_64-linux-gnu/liblsan.so.0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/verdict-peers.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
printf 'create table t(a,b); insert into t values(1,%s);\n' "'x'" >"$TMP/sql"
printf 'select count(*) from t;\n' >>"$TMP/sql"

# The programs: argv_of NAME sets ARGV.
argv_of() {
	case $1 in
	python3) ARGV=(python3 -c 'import json, re; print(json.dumps({"a": re.sub("b", "c", "abc")}))') ;;
	perl) ARGV=(perl -e 'my %h; $h{$_} = $_ x 3 for 1..10000; print scalar(keys %h), "\n"') ;;
	bash) ARGV=(bash -c 'x=$(echo hi); for i in 1 2 3; do y=$x$i; done; echo $y') ;;
	git) ARGV=(git -C "$ROOT" log --oneline -50) ;;
	gcc) ARGV=(gcc -O2 -c -I"$ROOT/include" -I"$ROOT/libmtrace" "$ROOT/libmtrace/scan/report.c" -o "$TMP/r.o") ;;
	sqlite3) ARGV=(sqlite3 :memory: ".read $TMP/sql") ;;
	*) echo "unknown program $1" >&2; exit 2 ;;
	esac
	# python3 may be a shim that execs the real one: trace the real one.
	[ "${ARGV[0]}" != python3 ] || ARGV[0]=$(python3 -c 'import sys; print(sys.executable)')
}

# "NAME d i p r" from one process's output of each tool.
ours_row() {
	"$CHECK" --json "$1" 2>/dev/null | tr -d '\n' |
		sed -n 's/.*"classes":{\(.*\)},"extended".*/\1/p' |
		awk -v prog="$(sed -n 's/^#p //p' "$1" | head -1)" '{
			split("definitely_lost indirectly_lost possibly_lost still_reachable", k)
			out = ""
			for (i = 1; i <= 4; i++) {
				re = "\"" k[i] "\":\\{\"bytes\":[0-9]+,\"blocks\":[0-9]+"
				match($0, re); s = substr($0, RSTART, RLENGTH)
				gsub(/[^0-9,]/, "", s); split(s, v, ",")
				out = out " " v[1] "/" v[2]
			}
			n = split(prog, p, "/"); print p[n] out }'
}

vg_row() {
	awk '/Command:/ { n = split($3, p, "/"); name = p[n] }
		/definitely lost:|indirectly lost:|possibly lost:|still reachable:/ {
			for (i = 1; i <= NF; i++) if ($i == "bytes") { b = $(i - 1); k = $(i + 2) }
			gsub(/,/, "", b); gsub(/,/, "", k); v = v " " b "/" k }
		END { if (name != "") print name (v == "" ? " 0/0 0/0 0/0 0/0" : v) }' "$1"
}

lsan_row() {
	awk -v name="$2" '/^(Direct|Indirect) leak of/ { k = $1; b[k] += $4; o[k] += $7 }
		END { printf "%s %d/%d %d/%d - -\n", name, b["Direct"], o["Direct"], b["Indirect"], o["Indirect"] }' "$1"
}

for prog in "${@:-python3 perl bash git gcc sqlite3}"; do
	for p in $prog; do
		echo "== $p"
		rm -rf "$TMP/run" && mkdir "$TMP/run" && cd "$TMP/run" || exit 1
		argv_of "$p"
		env MEMLEAK_CONFIG=mtraceinit MALLOC_TRACE="$TMP/run/log" LD_PRELOAD="$LIB" "${ARGV[@]}" >/dev/null 2>&1
		for f in log log.[0-9]*; do
			case $f in *.memlog) continue ;; esac
			[ -f "$f" ] && echo "libmtrace $(ours_row "$f") scan=$(sed -n 's/^#C scan .* us=\([0-9]*\).*/\1/p' "$f" | tail -1)us"
		done
		valgrind --trace-children=yes --leak-check=full --log-file="$TMP/run/vg.%p" "${ARGV[@]}" >/dev/null 2>&1
		for f in vg.*; do [ -f "$f" ] && echo "valgrind  $(vg_row "$f")"; done
		env LSAN_OPTIONS="log_path=$TMP/run/lsan" LD_PRELOAD="$LSAN" "${ARGV[@]}" >/dev/null 2>"$TMP/run/lsan-stderr"
		st=$?
		found=0
		for f in lsan.*; do [ -f "$f" ] && found=1 && echo "lsan      $(lsan_row "$f" "pid${f#lsan.}")"; done
		[ $found -eq 1 ] || echo "lsan      no leak reported (exit status $st$(grep -q 'Tracer caught signal\|Segmentation' "$TMP/run/lsan-stderr" && echo ', crashed'))"
	done
done
