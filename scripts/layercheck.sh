#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# layercheck.sh - keeps a program's layer folders layered.
#
#   layercheck.sh includes TABLE
#       Each #include "..." of the .c and .h files under TABLE's folder
#       that names one of that folder's files must stay in its own layer
#       folder or go to a lower one; folders on the same line of the table
#       are siblings and may not include each other; every .c/.h file sits
#       in a folder of the table; and no header includes itself through
#       others (a cycle among the headers).  A circle between folders
#       cannot happen then: includes only run down the table.
#   layercheck.sh exports TABLE OBJECT...
#       No object outside the exporter folder (below) refers to a name the
#       library exports (an undefined symbol in nm -u): internal code calls
#       the real function, never the library's own wrapper; nor defines one
#       (the export list is what the exporter folder marks).  The exported
#       names are those of the version script named by the table.
#
# TABLE is a text file in the root folder of the program it describes:
#     # comment
#     base                  the lowest layer: one folder a line,
#     log unwind            lowest first; two on a line are siblings
#     interpose
#     exporter interpose    the folder that defines the exported names
#     exports libmtrace.map the version script listing them (built)
# Files directly in the root folder belong to the folder ".", which the
# table may list like any other (a program's main.c on top, say).  The
# exporter and exports lines are needed by "exports" only.  Include
# names are taken as the compiler does with -I ROOT: first beside the
# including file, then from the root; those leading elsewhere (system and
# ../include headers) are not looked at.
# Prints each fault as "FILE:LINE: ..." and fails when there is one.
set -u
me=layercheck.sh
die() { echo "$me: $*" >&2; exit 2; }

[ $# -ge 2 ] || die "usage: $me includes TABLE | exports TABLE OBJECT..."
mode=$1 table=$2
shift 2
[ -f "$table" ] || die "no layer table $table"
root=$(cd "$(dirname "$table")" && pwd -P) || die "cannot enter $table's folder"

# The table's layers: "folder rank" lines, rank 1 the lowest.
layers=$(awk '
	{ sub(/#.*/, "") }
	NF == 0 || $1 == "exporter" || $1 == "exports" { next }
	{ rank++; for (i = 1; i <= NF; i++) print $i, rank }' "$table")
[ -n "$layers" ] || die "$table names no layer"
setting() { awk -v k="$1" '{ sub(/#.*/, "") } $1 == k { print $2; exit }' "$table"; }

check_includes() {
	local bad=0 f line inc dir target rel
	# Every include of every file, as "FILE LINE TARGET-FOLDER TARGET".
	local edges files
	# Every include of every file, as "FILE LINE TARGET" (TARGET: the
	# file of the tree it names, found as the compiler would), and a
	# "FILE 0 -" line for each file.
	files=$(cd "$root" && find . -path ./.build -prune -o \( -name '*.c' -o -name '*.h' \) \
		-type f -print | sed 's|^\./||' | sort) || return 2
	[ -n "$files" ] || die "no .c or .h file under $root"
	edges=$(cd "$root" && grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files |
		awk -v files="$files" '
		# Normalises a relative path: "a/./b/../c" is "a/c"; "" if it
		# leaves the root.
		function norm(p,   n, i, k, part, out) {
			n = split(p, part, "/"); k = 0
			for (i = 1; i <= n; i++) {
				if (part[i] == "." || part[i] == "") continue
				if (part[i] == "..") { if (k == 0) return ""; k--; continue }
				out[++k] = part[i]
			}
			p = ""
			for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
			return p
		}
		BEGIN { n = split(files, f, "\n"); for (i = 1; i <= n; i++) { have[f[i]] = 1; print f[i], 0, "-" } }
		{
			file = $0; sub(/:.*/, "", file)
			rest = substr($0, length(file) + 2)
			line = rest; sub(/:.*/, "", line)
			inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
			dir = file; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
			t = norm((dir == "" ? "" : dir "/") inc)
			if (t == "" || !(t in have)) t = norm(inc)
			if (t != "" && (t in have)) print file, line, t
		}')
	local rankfile
	rankfile=$(mktemp) || return 2
	echo "$layers" >"$rankfile"
	# Layer faults, and files outside every layer.
	awk -v table="$table" '
		function folder(p) { return p ~ /\// ? substr(p, 1, index(p, "/") - 1) : "." }
		FNR == NR { rank[$1] = $2; next }
		{
			from = folder($1)
			if (!(from in rank)) {
				if (!(($1) in told)) print $1 ": not in a layer folder of " table
				told[$1] = 1; bad = 1; next
			}
			if ($3 == "-") next
			to = folder($3)
			if (!(to in rank)) next
			if (from == to || rank[to] < rank[from]) next
			if (rank[to] == rank[from])
				print $1 ":" $2 ": includes " $3 ": " from "/ and " to "/ are siblings"
			else
				print $1 ":" $2 ": includes " $3 ": " to "/ is above " from "/"
			bad = 1
		}
		END { exit bad }' "$rankfile" - <<<"$edges" || bad=1
	rm -f "$rankfile"
	# A cycle among the headers: tsort names the files on it.
	local loop
	loop=$(awk '$3 != "-" && $1 ~ /\.h$/ { print $1, $3 } $1 ~ /\.h$/ { print $1, $1 }' \
		<<<"$edges" | tsort 2>&1 >/dev/null | sed 's/^tsort: //')
	if [ -n "$loop" ]; then
		echo "headers include each other in a circle:"
		echo "$loop"
		bad=1
	fi
	return $bad
}

check_exports() {
	local exporter map bad=0 o names
	exporter=$(setting exporter)
	map=$(setting exports)
	[ -n "$exporter" ] && [ -n "$map" ] || die "$table needs exporter and exports lines"
	[ -f "$root/$map" ] || die "no version script $root/$map: build first"
	[ $# -gt 0 ] || die "exports: no object given"
	names=$(sed -n '/global:/,/local:/p' "$root/$map" | tr ' ;\t' '\n\n\n' |
		grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | grep -vx 'global\|local')
	[ -n "$names" ] || die "$root/$map exports no name"
	for o in "$@"; do
		[ -f "$o" ] || die "no object $o"
		case $(realpath -m --relative-to="$root" "$o") in "$exporter"/*) continue ;; esac
		nm -u "$o" 2>/dev/null | awk '{ print $NF }' | sed 's/@.*//' | grep -Fxf <(echo "$names") |
			while read -r n; do echo "$o: calls $n, a name the library exports (its own wrapper)"; done |
			grep . && bad=1
		nm --defined-only "$o" 2>/dev/null | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' |
			grep -Fxf <(echo "$names") |
			while read -r n; do echo "$o: defines $n, a name the library exports, outside $exporter/"; done |
			grep . && bad=1
	done
	return $bad
}

case $mode in
includes) check_includes ;;
exports) check_exports "$@" ;;
*) die "unknown mode $mode (includes or exports)" ;;
esac
st=$?
[ $st -eq 0 ] && echo "$me: $mode of $(basename "$root")/: layered"
exit $st
