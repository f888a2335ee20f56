#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run-tests.sh - runs scripts/layercheck.sh on each layer table of the
# tree (libmtrace/layers.txt; mtrace-check/layers.txt once it has one),
# which must pass, then on a copy of libmtrace/ with one fault planted at
# a time, which must fail naming the fault: an include running up a
# layer, one between siblings, a file outside every layer folder, headers
# in a circle, and internal code calling a name the library exports.
set -u
cd "$(dirname "$0")/../.." || exit 2
check=$PWD/scripts/layercheck.sh
pass=0 fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-layers.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; sed 's/^/    /' "$tmp/out"; }

# expect STATUS PATTERN NAME -- COMMAND...: COMMAND exits with STATUS and
# prints a line matching PATTERN (grep -E).
expect() {
	local want=$1 pat=$2 name=$3 st
	shift 4
	"$@" >"$tmp/out" 2>&1
	st=$?
	if [ "$st" -eq "$want" ] && grep -qE -- "$pat" "$tmp/out"; then ok "$name"
	else echo "    (status $st, wanted $want)" >>"$tmp/out"; ko "$name"; fi
}

for table in libmtrace/layers.txt mtrace-check/layers.txt; do
	[ -f "$table" ] || continue
	expect 0 'layered' "$table: includes run down" -- "$check" includes "$table"
done
# Every object of libmtrace.so: base/options-doc.o is the tool that
# writes the option tables (make docs), never linked into the library
# (libmtrace/Makefile's CORE), and may use stdio's fopen like any program.
objs=$(cd libmtrace && ls */*.o | grep -vx 'base/options-doc.o')
expect 0 'layered' "libmtrace: no internal call to an exported name" -- \
	sh -c "cd libmtrace && '$check' exports layers.txt $(echo $objs)"

# fresh: a copy of libmtrace's sources and table in $tmp/lib.
fresh() {
	rm -rf "$tmp/lib"
	cp -r libmtrace "$tmp/lib"
}

fresh
expect 0 'layered' "the copy passes as the tree does" -- "$check" includes "$tmp/lib/layers.txt"

fresh
echo '#include "scan/scan.h"' >>"$tmp/lib/base/fmt.c"
expect 1 '^base/fmt\.c:[0-9]+: includes scan/scan\.h: scan/ is above base/' \
	"planted: base includes scan" -- "$check" includes "$tmp/lib/layers.txt"

fresh
printf '#include "../track/tracer.h"\n' >>"$tmp/lib/log/zstdlog.h"
expect 1 '^log/zstdlog\.h:[0-9]+: includes track/tracer\.h: track/ is above log/' \
	"planted: a header reaching up by a relative path" -- "$check" includes "$tmp/lib/layers.txt"

fresh
echo '#include "unwind/unwind.h"' >>"$tmp/lib/log/tracelog.c"
expect 1 'log/tracelog\.c:[0-9]+: includes unwind/unwind\.h: log/ and unwind/ are siblings' \
	"planted: log includes its sibling unwind" -- "$check" includes "$tmp/lib/layers.txt"

fresh
echo 'int stray;' >"$tmp/lib/stray.c"
expect 1 '^stray\.c: not in a layer folder' \
	"planted: a file outside every layer" -- "$check" includes "$tmp/lib/layers.txt"

fresh
printf '#include "base/twin.h"\n' >"$tmp/lib/base/one.h"
printf '#include "one.h"\n' >"$tmp/lib/base/twin.h"
expect 1 'circle' "planted: two headers including each other" -- \
	"$check" includes "$tmp/lib/layers.txt"

# An object of internal code calling sigaction (the library's wrapper),
# and the same call in the interposition layer, where it is allowed.
fresh
printf '#include <signal.h>\nint bad(void);\nint bad(void) { return sigaction(1, 0, 0); }\n' >"$tmp/bad.c"
cc -c -o "$tmp/lib/scan/bad.o" "$tmp/bad.c" && cp "$tmp/lib/scan/bad.o" "$tmp/lib/interpose/fine.o"
expect 1 'scan/bad\.o: calls sigaction' "planted: internal code calls an exported name" -- \
	sh -c "cd '$tmp/lib' && '$check' exports layers.txt scan/bad.o"
expect 0 'layered' "the interposition layer may call it" -- \
	sh -c "cd '$tmp/lib' && '$check' exports layers.txt interpose/fine.o"

printf 'int sigaction(void);\nint sigaction(void) { return 0; }\n' >"$tmp/def.c"
cc -c -o "$tmp/lib/track/def.o" "$tmp/def.c"
expect 1 'track/def\.o: defines sigaction' "planted: internal code defines an exported name" -- \
	sh -c "cd '$tmp/lib' && '$check' exports layers.txt track/def.o"

expect 2 'usage' "no table: usage, status 2" -- "$check" includes
expect 2 'no layer table' "a missing table: status 2" -- "$check" includes "$tmp/none.txt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
