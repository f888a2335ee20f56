#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# exportmap.sh OBJECT... - writes libmtrace.so's version script: the names
# the objects define with default visibility (MT_EXPORT in export.h, and
# vfork's .globl in interpose/vfork.c) are global, everything else
# (hidden code, the statically linked libiberty and libzstd) is local.
# The one export list is thus the MT_EXPORT markers in the sources;
# scripts/layercheck.sh reads this file to find the exported names.
set -eu
names=$(readelf -sW "$@" | awk '
	$5 ~ /^(GLOBAL|WEAK)$/ && $6 == "DEFAULT" && $7 != "UND" &&
	$4 ~ /^(FUNC|OBJECT|IFUNC)$/ { print $8 }' | sed 's/@.*//' | sort -u)
[ -n "$names" ] || { echo "exportmap.sh: no exported name in $*" >&2; exit 1; }
echo "/* libmtrace.map - written by scripts/exportmap.sh from the objects:"
echo " * the names marked MT_EXPORT.  Do not edit. */"
echo "{"
echo "  global:"
for n in $names; do echo "    $n;"; done
echo "  local: *;"
echo "};"
