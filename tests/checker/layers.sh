#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# layers.sh - mtrace-check's layer folders stay layered: the layer check
# (scripts/layercheck.sh) passes on mtrace-check/layers.txt, and fails on
# a copy with an include planted the wrong way (replay reaching up into
# output, the findings model into a writer) or a file outside the layers.
#
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
set -u
cd "$(dirname "$0")/../.." || exit 2
check=$PWD/scripts/layercheck.sh
pass=0 fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtc-layers.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# expect STATUS PATTERN NAME -- COMMAND...
expect() {
	local want=$1 pat=$2 name=$3 st
	shift 4
	"$@" >"$tmp/out" 2>&1
	st=$?
	if [ "$st" -eq "$want" ] && grep -qE -- "$pat" "$tmp/out"; then
		pass=$((pass + 1))
		echo "ok: $name"
	else
		fail=$((fail + 1))
		echo "FAIL: $name (status $st, wanted $want)"
		sed 's/^/    /' "$tmp/out"
	fi
}

# fresh: a copy of mtrace-check's sources and table.
fresh() {
	rm -rf "$tmp/chk"
	mkdir -p "$tmp/chk"
	(cd mtrace-check && cp -r layers.txt $(sed 's/#.*//' layers.txt) "$tmp/chk/")
}

expect 0 'layered' "mtrace-check/layers.txt: includes run down" -- \
	"$check" includes mtrace-check/layers.txt

fresh
echo '#include "output/writer.h"' >>"$tmp/chk/replay/engine.c"
expect 1 '^replay/engine\.c:[0-9]+: includes output/writer\.h: output/ is above replay/' \
	"planted: the replay includes a writer" -- "$check" includes "$tmp/chk/layers.txt"

fresh
echo '#include "output/outputs.h"' >>"$tmp/chk/findings/findings.h"
expect 1 '^findings/findings\.h:[0-9]+: includes output/outputs\.h: output/ is above findings/' \
	"planted: the model includes the writers' table" -- "$check" includes "$tmp/chk/layers.txt"

fresh
echo 'int stray;' >"$tmp/chk/stray.c"
expect 1 '^stray\.c: not in a layer folder' \
	"planted: a file outside every layer" -- "$check" includes "$tmp/chk/layers.txt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
