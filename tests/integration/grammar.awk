# SPDX-License-Identifier: GPL-3.0-or-later
# grammar.awk - validate an extended libmtrace log against doc/format.md.
# Also: a "-" or "<" carries the stack id of the block's allocation, and a
# log libmtrace finished ends with "#e" (lines may follow it: frees from
# late destructors, or a failed exec that logs on).
# Takes any number of logs, each checked on its own.  Prints the first
# offending line ("LOG line N: why: text") and exits 1; silent and 0 when
# every log is valid.
function bad(why) {
	printf "%s line %d: %s: %s\n", FILENAME, FNR, why, $0
	failed = 1
	exit 1
}
# finish(): the end of one log (END, or the first line of the next).
function finish() {
	if (file != "" && !ended) {
		printf "%s line %d: no '#e' record: the log was not finished\n", file, lines
		failed = 1
		exit 1
	}
	split("", mods); split("", stacks); split("", live)
	ended = 0
}
function hex(s) { return s ~ /^0x[0-9a-f]+$/ }
function size(s) { return s == "0" || hex(s) }
function dec(s) { return s ~ /^[0-9]+$/ }
function where(s) {
	return s ~ /^\[0x[0-9a-f]+\]$/ || s ~ /^.+:\[0x[0-9a-f]+\]$/ ||
	       s ~ /^.+:\(.+[-+][0-9a-f]+\)\[0x[0-9a-f]+\]$/
}
function frame(s, parts) {
	if (split(s, parts, ":") != 2 || !hex(parts[2]))
		return 0
	return parts[1] == "-" || parts[1] in mods
}
FNR == 1 {
	finish()
	file = FILENAME
	lines = 1
	if ($0 != "= Start") bad("first line is not '= Start'")
	next
}
{ lines = FNR }
FNR == 2 { if ($1 != "#v" || !dec($2)) bad("second line is not '#v VERSION'") }
/^= (Start|End)$/ { if ($2 == "Start") bad("second '= Start'"); next }
$1 == "#v" { if (FNR != 2) bad("'#v' not on line 2"); next }
$1 == "#p" { if (NF < 2) bad("empty #p"); next }
$1 == "#m" {
	if (!dec($2) || !hex($3) || ($4 != "-" && $4 !~ /^[0-9a-f]+$/) || NF < 5)
		bad("malformed #m")
	mods[$2] = 1
	next
}
$1 == "#u" { if (!($2 in mods)) bad("#u of an unknown module"); next }
$1 == "#f" {
	if (!($2 in mods) || !hex($3) || !hex($4) || NF < 5) bad("malformed #f")
	next
}
$1 == "#s" {
	if (!dec($2) || ($2 in stacks)) bad("#s id not new")
	if (NF < 3) bad("#s without frames")
	for (i = 3; i <= NF; i++)
		if (!frame($i)) bad("bad frame " $i)
	stacks[$2] = 1
	next
}
$1 == "#e" {
	if ($2 !~ /^(exit|muntrace|exec|signal)$/) bad("unknown #e reason")
	for (i = 3; i <= NF; i++)
		if ($i !~ /^[a-z]+=[0-9]+$/) bad("bad #e field " $i)
	ended = FNR
	next
}
$1 == "#w" {
	if (!hex($2) || !dec($3) || $3 + 0 > 32 || $4 !~ /^([0-9a-f][0-9a-f])*$/ ||
	    length($4) != 2 * $3) bad("malformed #w")
	if (NF == 5 && !(frame($5) && $5 !~ /^-:/)) bad("#w: bad module reference")
	if (NF > 5) bad("#w: extra fields")
	next
}
$1 == "#t" {
	if (!dec($2) || (NF != 2 && NF != 4)) bad("malformed #t")
	if (NF == 4 && ($3 !~ /^rss-anon=[0-9]+$/ || $4 !~ /^rss-file=[0-9]+$/)) bad("malformed #t rss fields")
	next
}
$1 == "#C" {
	if ($2 == "suppression") {
		if ($3 !~ /^leak:./ || NF != 3) bad("malformed #C suppression")
		next
	}
	if ($2 == "cost") {
		for (i = 3; i <= NF; i++)
			if ($i !~ /^[a-z_]+=[0-9]+$/) bad("bad #C cost field " $i)
		if ($3 !~ /^seq=/) bad("#C cost without seq")
		next
	}
	if ($2 == "totals") { # a live log's (doc/format.md, "Live logs")
		if (NF != 7 || $3 !~ /^allocs=[0-9]+$/ || $4 !~ /^alloc-bytes=[0-9]+$/ ||
		    $5 !~ /^frees=[0-9]+$/ || $6 !~ /^freed-bytes=[0-9]+$/ ||
		    $7 !~ /^peak-bytes=[0-9]+$/) bad("malformed #C totals")
		next
	}
	if ($2 != "scan") bad("unknown #C record")
	for (i = 3; i <= NF; i++)
		if ($i !~ /^[a-z]+=[0-9a-z]+$/) bad("bad #C field " $i)
	next
}
$1 == "#c" {
	if (!hex($2) || $3 !~ /^[pid]$/) bad("malformed #c")
	if (NF == 4 && ($3 != "d" || !dec($4))) bad("#c: indirect bytes on a " $3)
	if (NF > 4) bad("#c: extra fields")
	next
}
function kind(s) { return s == "pool" || s == "mmap" }
$1 == "#b" {
	if (NF < 5 || NF > 6 || !kind($2) || !hex($3) || !size($4)) bad("malformed #b")
	if ($5 !~ /^s[0-9]+$/ || !(substr($5, 2) in stacks)) bad("#b: stack id not defined before use")
	if (NF == 6 && ($2 != "pool" || !dec($6))) bad("#b: bad pool id")
	next
}
$1 == "#x" { if (NF != 3 || !kind($2) || !hex($3)) bad("malformed #x"); next }
$1 == "#P" {
	if (!dec($3) || !(($2 == "new" && NF >= 4) || ($2 == "destroy" && NF == 3)))
		bad("malformed #P")
	next
}
$1 == "#k" {
	if (NF < 4 || NF > 5 || !kind($2) || !hex($3) || $4 !~ /^[pid]$/) bad("malformed #k")
	if (NF == 5 && ($4 != "d" || !dec($5))) bad("#k: indirect bytes on a " $4)
	next
}
$1 == "#r" {
	if ($2 !~ /^[-+]$/ || $3 == "" || length($3) > 64 || !size($4) || NF != 5)
		bad("malformed #r")
	if ($5 !~ /^s[0-9]+$/ || !(substr($5, 2) in stacks)) bad("#r: stack id not defined before use")
	next
}
$1 == "#" { next }
{
	i = 1
	if ($1 == "@") {
		if (!where($2)) bad("bad WHERE")
		i = 3
	}
	op = $i
	if (op == "+" || op == ">" || op == "!")
		n = 3
	else if (op == "-" || op == "<")
		n = 2
	else
		bad("unknown line")
	if (!hex($(i + 1))) bad("bad pointer")
	if (n == 3 && !size($(i + 2))) bad("bad size")
	if (NF != i + n) bad("no stack id (or extra fields)")
	s = $(i + n)
	if (s !~ /^s[0-9]+$/ || !(substr(s, 2) in stacks)) bad("stack id not defined before use")
	p = $(i + 1)
	if (op == "+" || op == ">")
		live[p] = s
	else if (op == "-" || op == "<") {
		if ((p in live) && live[p] != s) bad("stack id is not the allocation's " live[p])
		delete live[p]
	}
}
END { if (!failed) finish() }
