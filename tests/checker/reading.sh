#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# reading.sh - mtrace-check's reading side, end to end:
#   - completeness: a libmtrace log cut at every byte is said to end early
#     (text, stderr, JSON "complete": false) unless the cut keeps a whole
#     "#e" line; complete logs never are; "#e exec" lists no leaks and
#     exits 0; "#e signal" names the signal; classic logs are not judged;
#   - several logs in one call: a header per log, the worst exit status,
#     the first operand told apart (ELF binary or log), JSON "logs" list;
#   - zstd and gzip logs, by magic bytes, from a file and from stdin, the
#     same report as the plain log; zstdcat into glibc's mtrace works too;
#   - a frame outside every function symbol's extent is "??" with its
#     module and offset in text, JSON, folded and HTML output;
#   - the documentation names only options and pages that exist;
#   - bounded memory: /dev/zero (one endless line) under a timeout, a
#     1 GiB sparse file, a 4 MiB+ line, and a log of 150 MB, each with its
#     peak RSS measured and under a hard address-space limit.
#
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CHECK=$here/../../mtrace-check/mtrace-check
MTRACE=/usr/bin/mtrace
OUT=$here/out/reading
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT" || exit 2

pass=0
failures=0
ok() { pass=$((pass + 1)); }
bad() {
	failures=$((failures + 1))
	echo "FAIL: $*"
}

# json_get FILE PERL-EXPR: evaluate EXPR with $j the decoded JSON.
json_get() {
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); print eval($ARGV[0]) // "undef"' \
		"$2" <"$1"
}

# A libmtrace-shaped log: header, modules, stacks, events, two leaks, then
# "#e REASON", then a late free (it still counts).
make_log() {
	local reason=$1
	printf '= Start\n'
	printf '#v 1 pid=7 proc=7:1:abcdef01 ppid=1 depth=32 unwinder=fast\n'
	printf '#p /nonexistent/prog\n'
	printf '#m 0 0x555555554000 - /nonexistent/prog\n'
	printf '#f 0 0x1149 0x10 make_it\n'
	printf '#s 1 0:0x1149 0:0x1200\n'
	printf '#s 2 0:0x1160 0:0x1200\n'
	printf '@ /nonexistent/prog:[0x1149] + 0x5000 0x10 s1\n'
	printf '@ /nonexistent/prog:[0x1160] + 0x5040 0x20 s2\n'
	printf '@ /nonexistent/prog:[0x1160] + 0x5080 0x30 s2\n'
	printf '@ /nonexistent/prog:[0x1170] - 0x5000 s1\n'
	printf '@ /nonexistent/prog:[0x1149] + 0x50c0 0x40 s1\n'
	printf '#e %s\n' "$reason"
	printf '@ /nonexistent/prog:[0x1180] - 0x50c0 s1\n'
	printf '= End\n'
}

# cut_log LOG DIR DIGITS EVERY LAST: DIR/K (K in DIGITS digits) holds the
# first K bytes of LOG, for every K that is a multiple of EVERY or among
# the LAST sizes before the whole.  One process for all the cuts.
cut_log() {
	mkdir -p "$2"
	perl -e 'my ($log, $dir, $digits, $every, $last) = @ARGV;
		open my $in, "<", $log or die "$log: $!"; local $/; my $all = <$in>;
		my $size = length $all;
		for my $k (0 .. $size - 1) {
			next unless $k % $every == 0 || $k >= $size - $last;
			open my $out, ">", sprintf("%s/%0*d", $dir, $digits, $k) or die;
			print $out substr($all, 0, $k);
		}' "$@"
}

echo "== completeness: #e"
make_log exit >full.log
size=$(stat -c %s full.log)
# The byte after the "#e" line's newline: cuts from there on keep it.
keep=$(perl -e 'local $/; $_ = <STDIN>; /^#e [^\n]*\n/m or die; print $+[0]' <full.log)
cut_log full.log cuts 5 1 0
# One call for all cuts (full.log first: it names no binary).
"$CHECK" --json full.log cuts/* >cuts.json 2>cuts.err
wrong=$(perl -MJSON::PP -e '
	local $/; my $j = decode_json(<STDIN>); my ($keep, $bad) = ($ARGV[0], 0);
	for my $l (@{$j->{logs}}) {
		next unless $l->{log} =~ m{cuts/0*(\d+)$};
		my $k = $1;
		my $want = !$l->{extended} ? undef : $k >= $keep ? 1 : 0;
		my $got = $l->{complete};
		$got = defined $got ? ($got ? 1 : 0) : undef;
		if ((defined $want) != (defined $got) || (defined $want && $want != $got)) {
			print "cut at $k: complete=", $got // "null", "\n"; $bad++;
		}
		# Every cut past the "#v" line is an extended log.
		if ($k >= 70 && !$l->{extended}) { print "cut at $k: not extended\n"; $bad++ }
	}
	print "only ", scalar(@{$j->{logs}}), " logs\n" if @{$j->{logs}} != $ARGV[1] + 1;
	' "$keep" "$size" <cuts.json)
if [ -z "$wrong" ]; then ok; else bad "cut logs judged wrongly:"; echo "$wrong" | head -5; fi
n_early=$(grep -c "the log ends early" cuts.err)
n_want=$(perl -e 'print $ARGV[1] - $ARGV[0]' 70 "$keep")
if [ "$n_early" -ge "$n_want" ]; then ok; else bad "only $n_early stderr lines for cut logs"; fi

# Text: the cut log says so after the report; the complete one does not.
head -c $((keep - 1)) full.log >cut.log
"$CHECK" cut.log >cut.out 2>cut.err
if grep -q "^The log ends early" cut.out && grep -q "ends early" cut.err; then ok; else
	bad "a cut log's text report does not say it ends early"; fi
"$CHECK" full.log >full.out 2>full.err
st=$?
if [ $st = 1 ] && ! grep -q "ends early" full.out full.err && grep -q "^Memory not freed" full.out; then ok
else bad "complete log: status $st or an 'ends early' note"; fi

for reason in exit muntrace "signal sig=11" exec "exit status=0"; do
	make_log "$reason" >r.log
	"$CHECK" --json r.log >r.json 2>/dev/null
	st=$?
	c=$(json_get r.json '$j->{complete} ? "yes" : "no"')
	case $reason in
	exec)
		n=$(json_get r.json 'scalar @{$j->{leaks}}')
		held=$(json_get r.json '$j->{end}{held_blocks}')
		if [ "$c" = yes ] && [ $st = 0 ] && [ "$n" = 0 ] && [ "$held" = 2 ]; then ok; else
			bad "#e exec: complete=$c status=$st leaks=$n held=$held"; fi
		"$CHECK" r.log >r.out 2>/dev/null
		if grep -q "^No memory leaks." r.out && grep -q "replaced itself by exec (line 13)" r.out; then ok
		else bad "#e exec: text"; cat r.out; fi ;;
	signal*)
		sig=$(json_get r.json '$j->{end}{signal}')
		"$CHECK" r.log >r.out 2>/dev/null
		if [ "$c" = yes ] && [ $st = 1 ] && [ "$sig" = 11 ] &&
			grep -q "killed by signal 11 (SIGSEGV)" r.out; then ok
		else bad "#e signal: complete=$c status=$st sig=$sig"; fi ;;
	*)
		if [ "$c" = yes ] && [ $st = 1 ]; then ok; else bad "#e $reason: complete=$c status=$st"; fi ;;
	esac
done
# The last "#e" decides: exec that failed, then exit.
{ make_log exec | sed '$d'; printf '@ /nonexistent/prog:[0x1190] + 0x6000 0x8 s1\n#e exit\n'; } >r.log
"$CHECK" --json r.log >r.json 2>/dev/null
st=$?
if [ "$(json_get r.json '$j->{end}{reason}')" = exit ] && [ $st = 1 ]; then ok; else
	bad "a later #e exit does not replace #e exec"; fi

# Classic logs are never judged: no note, "complete": null.
grep -v '^#' full.log | sed 's/ s[0-9]*$//' >classic.log
"$CHECK" classic.log >classic.out 2>classic.err
"$CHECK" --json classic.log >classic.json
if ! grep -q "ends early" classic.out classic.err &&
	[ "$(json_get classic.json '$j->{complete} // "null"')" = null ]; then ok; else
	bad "a classic log was judged"; fi
if [ -x "$MTRACE" ]; then
	"$MTRACE" classic.log >classic.perl 2>/dev/null
	if cmp -s classic.perl classic.out; then ok; else bad "classic log differs from mtrace"; fi
fi

# A real libmtrace log: complete after exit, cut short by SIGKILL, and cut
# at every byte of its last 600 (around "#e") and every 97th before.
LIBMTRACE=$here/../../libmtrace/libmtrace.so
if [ -e "$LIBMTRACE" ] && command -v gcc >/dev/null; then
	printf '#include <signal.h>\n#include <stdlib.h>\n#include <string.h>\n
int main(int c, char **v) { char *p = malloc(64); strcpy(p, "leak");
if (c > 1 && strcmp(v[1], "kill") == 0) raise(SIGKILL); return p[0] == 0; }\n' >prog.c
	gcc -O0 -g -o prog prog.c
	MEMLEAK_CONFIG=mtraceinit MALLOC_TRACE=$OUT/real.log LD_PRELOAD=$LIBMTRACE timeout 60 ./prog
	(MEMLEAK_CONFIG=mtraceinit MALLOC_TRACE=$OUT/killed.log LD_PRELOAD=$LIBMTRACE timeout 60 ./prog kill) 2>/dev/null
	"$CHECK" --json ./prog real.log >real.json 2>/dev/null
	"$CHECK" --json ./prog killed.log >killed.json 2>/dev/null
	if [ "$(json_get real.json '$j->{complete} ? "yes" : "no"')" = yes ] &&
		[ "$(json_get killed.json '$j->{complete} ? "yes" : "no"')" = no ] &&
		[ "$(json_get killed.json '$j->{extended} ? "yes" : "no"')" = yes ]; then ok; else
		bad "real logs: complete after exit, not after SIGKILL"; fi
	keep=$(perl -e 'local $/; $_ = <STDIN>; /^#e [^\n]*\n/m or exit 1; print $+[0]' <real.log) ||
		bad "the real log has no #e line"
	rm -rf rcuts
	cut_log real.log rcuts 6 97 600
	"$CHECK" --json real.log rcuts/* >rcuts.json 2>/dev/null
	# Python's json: the report of 800 logs is 40 MB, 15 s for JSON::PP.
	wrong=$(python3 -c '
import json, re, sys
keep, bad = int(sys.argv[1]), 0
for l in json.load(sys.stdin)["logs"]:
    m = re.search(r"rcuts/0*(\d+)$", l["log"])
    if m and l.get("extended") and bool(l["complete"]) != (int(m.group(1)) >= keep):
        bad += 1
print(bad)' "${keep:-0}" <rcuts.json)
	if [ "$wrong" = 0 ]; then ok; else bad "real log cut at every byte: $wrong cuts judged wrongly"; fi
fi

echo "== several logs"
make_log exit >a.log
make_log exec >b.log
grep -v '^#' full.log | sed 's/ s[0-9]*$//' >c.log
"$CHECK" a.log >a.out 2>/dev/null
"$CHECK" b.log >b.out 2>/dev/null
"$CHECK" c.log >c.out 2>/dev/null
"$CHECK" a.log b.log c.log >abc.out 2>/dev/null
st=$?
{ echo "==> a.log <=="; cat a.out; echo; echo "==> b.log <=="; cat b.out
  echo; echo "==> c.log <=="; cat c.out; } >abc.want
# Each log's report as it is alone, then (libmtrace logs among them) the
# combined summary (tests/integration tests-tree.sh checks its sums).
sed '/^==> summary of 3 logs <==$/,$d' abc.out | sed '$d' >abc.above
if [ $st = 1 ] && cmp -s abc.want abc.above && grep -q '^LEAK SUMMARY of 3 processes:$' abc.out; then ok; else
	bad "three logs: status $st, or sections differ from single runs"; diff abc.want abc.above | head; fi
"$CHECK" b.log b.log >bb.out 2>/dev/null
if [ $? = 0 ]; then ok; else bad "two clean logs: status not 0"; fi
"$CHECK" a.log missing.log b.log >am.out 2>am.err
st=$?
if [ $st = 2 ] && grep -q "missing.log" am.err && grep -q "==> b.log <==" am.out; then ok; else
	bad "a missing log among others: status $st"; fi
# The first operand: an ELF file is BINARY, a log is a log.
"$CHECK" /bin/true a.log b.log >tb.out 2>/dev/null
if [ "$(grep -c '^==> .*\.log <==$' tb.out)" = 2 ] && ! grep -q '==> /bin/true' tb.out; then ok; else
	bad "an ELF first operand was not taken as BINARY"; fi
"$CHECK" /bin/true a.log >t1.out 2>/dev/null
if ! grep -q '^==> ' t1.out && cmp -s a.out t1.out; then ok; else
	bad "BINARY LOG: output is not the single-log report"; fi
# JSON: one object with a "logs" list; errors are entries.
"$CHECK" --json a.log missing.log c.log >m.json 2>/dev/null
st=$?
if [ $st = 2 ] && [ "$(json_get m.json 'scalar @{$j->{logs}}')" = 3 ] &&
	[ "$(json_get m.json '$j->{logs}[1]{error} ? "e" : ""')" = e ] &&
	[ "$(json_get m.json '$j->{logs}[2]{log}')" = c.log ]; then ok; else
	bad "JSON for several logs: status $st"; head -c 300 m.json; fi

echo "== compressed logs"
LIBC_DEBUG=
for t in /lib/x86_64-linux-gnu/libc_malloc_debug.so /usr/lib64/libc_malloc_debug.so; do
	[ -e "$t" ] && LIBC_DEBUG=$t && break
done
cp full.log plain.log
if [ -n "$LIBC_DEBUG" ]; then
	gcc -O0 -g -o basic "$here/progs/basic.c" 2>/dev/null &&
		MALLOC_TRACE=$OUT/plain.log LD_PRELOAD=$LIBC_DEBUG ./basic a b >/dev/null 2>&1
fi
"$CHECK" ./basic plain.log >plain.out 2>/dev/null
plain_st=$?
if command -v zstd >/dev/null; then
	zstd -q -f -o log.zst plain.log
	cp log.zst disguised.log # the name says nothing
	"$CHECK" ./basic log.zst >zst.out 2>/dev/null
	st1=$?
	"$CHECK" ./basic disguised.log >dis.out 2>/dev/null
	"$CHECK" ./basic - <log.zst >stdin.out 2>/dev/null
	if [ $st1 = $plain_st ] && cmp -s plain.out zst.out && cmp -s plain.out dis.out &&
		cmp -s plain.out stdin.out; then ok; else bad "zstd log: report differs from the plain log's"; fi
	if [ -x "$MTRACE" ]; then
		zstdcat log.zst | "$MTRACE" ./basic - >zcat.perl 2>/dev/null
		"$MTRACE" ./basic plain.log >plain.perl 2>/dev/null
		if cmp -s zcat.perl plain.perl && cmp -s plain.perl plain.out; then ok; else
			bad "zstdcat LOG.zst | mtrace prog - does not give mtrace's report"; fi
	fi
	# Cut short while written: what is there is read, and it says so.
	head -c $(($(stat -c %s log.zst) - 5)) log.zst >cut.zst
	"$CHECK" ./basic cut.zst >/dev/null 2>cutz.err
	if grep -q "stops inside a frame" cutz.err; then ok; else bad "a cut zstd log is not reported"; fi
else
	echo "   (zstd not installed: zstd checks skipped)"
fi
gzip -c plain.log >log.gz
cat log.gz log.gz >twice.gz # two members: the log twice
"$CHECK" ./basic log.gz >gz.out 2>/dev/null
st=$?
"$CHECK" ./basic - <log.gz >gzin.out 2>/dev/null
if [ $st = $plain_st ] && cmp -s plain.out gz.out && cmp -s plain.out gzin.out; then ok; else
	bad "gzip log: report differs from the plain log's"; fi
cat plain.log plain.log >twice.log
"$CHECK" ./basic twice.log >twice.out 2>/dev/null
"$CHECK" ./basic twice.gz >twicegz.out 2>/dev/null
if cmp -s twice.out twicegz.out; then ok; else bad "concatenated gzip members"; fi
{ head -c 20 log.gz; printf '\xff%.0s' $(seq 30); tail -c +51 log.gz; } >bad.gz
"$CHECK" bad.gz >/dev/null 2>bad.err
st=$?
if [ $st = 2 ] && grep -q "corrupt gzip" bad.err; then ok; else bad "corrupt gzip: status $st"; fi

echo "== frames outside every function's extent"
# progs/symcases.S has 8 bytes after plain() (16 bytes) that no symbol
# covers; without debug information libbfd names them plain all the same.
# A frame there is "??" with its module and offset in every output; a
# frame inside plain() keeps its name; the stripped library (dynamic
# symbols only) loses the local outer() and its nested functions.
if command -v gcc >/dev/null && command -v readelf >/dev/null; then
	gcc -c -DPART=1 -o sc1.o "$here/progs/symcases.S" &&
		gcc -c -DPART=2 -o sc2.o "$here/progs/symcases.S" &&
		gcc -shared -nostdlib -o symcases.so sc1.o sc2.o &&
		strip -o symcases-stripped.so symcases.so
	sym() { readelf -sW symcases.so | awk -v n="$1" '$8 == n { print $2; exit }'; }
	plain=$((16#$(sym plain))) outer=$((16#$(sym outer)))
	# Return addresses: each frame is looked up one byte before.
	ret_gap=$(printf '0x%x' $((plain + 16 + 1))) ret_in=$(printf '0x%x' $((plain + 4 + 1)))
	ret_outer=$(printf '0x%x' $((outer + 8 + 1)))
	for lib in symcases.so symcases-stripped.so; do
		{ printf '= Start\n#v 1 pid=7 depth=32 unwinder=fast\n#p /nonexistent/prog\n'
		  printf '#m 0 0x7f0000000000 - %s\n' "$OUT/$lib"
		  printf '#s 1 0:%s 0:%s 0:%s\n' "$ret_gap" "$ret_in" "$ret_outer"
		  printf '@ [0x1] + 0x1000 0x10 s1\n#e exit\n= End\n'; } >gap-$lib.log
	done
	"$CHECK" gap-symcases.so.log >gap.out 2>gap.err
	m="$OUT/symcases.so"
	if grep -qxF "    #0 ?? at ??:? ($m+$ret_gap)" gap.out &&
		grep -qxF "    #1 plain at ??:? ($m+$ret_in)" gap.out &&
		grep -qxF "    #2 outer at part1.c:? ($m+$ret_outer)" gap.out; then ok; else
		bad "text: a frame past plain()'s end is not ?? (or plain, outer lost)"; cat gap.out; fi
	"$CHECK" gap-symcases-stripped.so.log >gaps.out 2>/dev/null
	m="$OUT/symcases-stripped.so"
	if grep -qxF "    #0 ?? at ??:? ($m+$ret_gap)" gaps.out &&
		grep -qxF "    #1 plain at ??:? ($m+$ret_in)" gaps.out &&
		grep -qxF "    #2 ?? at ??:? ($m+$ret_outer)" gaps.out; then ok; else
		bad "text, stripped: a frame in a local function is not ??"; cat gaps.out; fi
	"$CHECK" --json gap-symcases.so.log >gap.json 2>/dev/null
	got=$(json_get gap.json 'join ",", map { ($_->{function} // "null") . "@" . $_->{module} .
		"+" . $_->{offset} } @{$j->{groups}[0]{frames}}')
	if [ "$got" = "null@$OUT/symcases.so+$ret_gap,plain@$OUT/symcases.so+$ret_in,outer@$OUT/symcases.so+$ret_outer" ]
	then ok; else bad "JSON frames: $got"; fi
	"$CHECK" --folded gap-symcases.so.log >gap.folded 2>/dev/null
	# Folded frames name an unknown function by the module's file name.
	if [ "$(cat gap.folded)" = "outer;plain;symcases.so+$ret_gap 16" ]; then ok; else
		bad "folded: $(cat gap.folded)"; fi
	"$CHECK" --quiet --html gap.html gap-symcases.so.log >/dev/null 2>&1
	names=$(perl -MJSON::PP -e 'local $/; my $t = <STDIN>;
		$t =~ m{id="mtc-data">\n(.*?)\n</script>}s or die; my $d = decode_json($1);
		print join ",", sort @{$d->{frames}{name}}' <gap.html)
	if [ "$names" = "outer,plain,symcases.so+$ret_gap" ]; then ok; else
		bad "HTML frame names: $names"; fi
fi

echo "== bounded memory"
# A checker built with AddressSanitizer (scripts/sanitize.sh) reserves
# terabytes of shadow memory at start, which no address-space limit
# allows, and its RSS is the sanitizer's as much as its own: for it the
# limit and the RSS bounds are left out, and the rest is checked as usual.
asan=
if ldd "$CHECK" 2>/dev/null | grep -q 'libasan\.so'; then
	asan=1
	echo "   (AddressSanitizer build: no address-space limit, RSS not bounded)"
fi
# peak_kb CMD...: run CMD under a 4 GiB address-space limit, print its
# exit status and peak RSS in KiB ("STATUS KB").
peak_kb() {
	if [ -n "$asan" ]; then
		/usr/bin/time -f "%x %M" -o peak.txt "$@" >peak.out 2>peak.err
	else
		(ulimit -v 4194304; /usr/bin/time -f "%x %M" -o peak.txt "$@" >peak.out 2>peak.err)
	fi
	sed 's/^Command exited with non-zero status [0-9]*$//; /^$/d' peak.txt | tail -1
}
# below KB LIMIT_KB: the peak RSS is within the bound (see asan above).
below() {
	[ -n "$asan" ] || [ "$1" -lt "$2" ]
}
LIMIT_KB=$((100 * 1024))
if [ -x /usr/bin/time ]; then
	# /dev/zero never ends: stopped after 5 s, not by a crash or the limit.
	read -r st kb < <(peak_kb timeout -s INT 5 "$CHECK" /dev/zero)
	if [ "$st" = 124 ] && below "$kb" $LIMIT_KB && grep -q "/dev/zero:1: line longer than" peak.err; then
		ok; echo "   /dev/zero for 5 s: peak RSS ${kb} KiB"
	else bad "/dev/zero: status $st, peak RSS $kb KiB"; head -3 peak.err; fi
	# A sparse 1 GiB file: one line of NUL bytes, mapped and skipped; it
	# is no trace (status 2).
	truncate -s 1G sparse.log
	read -r st kb < <(peak_kb timeout 300 "$CHECK" sparse.log)
	if [ "$st" = 2 ] && below "$kb" $LIMIT_KB && grep -q "sparse.log:1: line longer" peak.err &&
		grep -q "sparse.log: not an mtrace log" peak.err; then
		ok; echo "   1 GiB file of one line: peak RSS ${kb} KiB"
	else bad "1 GiB sparse file: status $st, peak RSS $kb KiB"; head -3 peak.err; fi
	rm -f sparse.log
	# A 5 MiB line among others: skipped, counted, the rest checked.
	{ printf '= Start\n+ 0x10 0x8\n'; head -c 5242880 /dev/zero | tr '\0' x; printf '\n- 0x99\n'; } >long.log
	read -r st kb < <(peak_kb "$CHECK" long.log)
	if [ "$st" = 1 ] && grep -q "long.log:3: line longer than 4194304 bytes" peak.err &&
		grep -q "Free 4 was never alloc'd" peak.out && grep -q "^0x0000000000000010 " peak.out; then ok
	else bad "a 5 MiB line: status $st"; head -3 peak.err; fi
	# 150 MB of log, at most 1000 blocks live: memory follows the blocks.
	perl -e 'print "= Start\n"; for my $i (0 .. 1_999_999) {
		printf "@ ./prog:[0x%x] + 0x%x 0x%x\n", 0x1100 + $i % 16, 0x10000 + ($i % 1000) * 64, 32 + $i % 50;
		printf "@ ./prog:[0x1200] - 0x%x\n", 0x10000 + (($i + 1) % 1000) * 64 if $i >= 999 }
		print "= End\n"' >big.log
	for threads in 1 2; do
		read -r st kb < <(MTRACE_CHECK_THREADS=$threads peak_kb "$CHECK" big.log)
		if [ "$st" = 1 ] && below "$kb" $((60 * 1024)); then ok
			echo "   $(($(stat -c %s big.log) / 1000000)) MB log, $threads thread(s): peak RSS ${kb} KiB"
		else bad "$(stat -c %s big.log)-byte log, $threads threads: status $st, peak RSS $kb KiB"; fi
	done
	rm -f big.log
else
	echo "   (/usr/bin/time missing: memory checks skipped)"
fi

echo "== the documentation names what exists"
TOP=$here/../..
# Every "mtrace-check --OPTION" the Markdown pages and README show is an
# option mtrace-check --help lists.
help=$("$CHECK" --help)
missing=$(cd "$TOP" && grep -ohE 'mtrace-check( [^`]*)? --[a-z][a-z-]*' README.md doc/*.md |
	grep -oE -- '--[a-z][a-z-]*' | sort -u | while read -r o; do
		[[ $help == *"$o"* ]] || echo "$o"; done)
if [ -z "$missing" ]; then ok; else bad "documented options mtrace-check does not have: $missing"; fi
# Every man page's .TH names the version mtrace-check --version prints
# (both from mk/version.mk; make docs writes the pages').
version=$("$CHECK" --version | sed -n '1s/^mtrace-check (libmtrace) //p')
stale=$(cd "$TOP" && grep -L "^\.TH .*\"libmtrace $version\"" doc/*.[0-9])
if [ -n "$version" ] && [ -z "$stale" ]; then ok; else
	bad "man pages whose .TH is not of version '$version' (make docs): $stale"; fi
# Every page of ours that a page names (memleak_*(3), libmtrace(3),
# mtrace-check(1)) exists in doc/, and make install installs it and make
# uninstall removes it.
pages=$(cd "$TOP" && { grep -ohE '^\.BR (memleak_[a-z_]*|libmtrace|mtrace-check) \([0-9]\)' doc/*.[0-9] |
	sed -E 's/^\.BR ([^ ]*) \(([0-9])\)/\1.\2/'
	grep -ohE '`(memleak_[a-z_]*|libmtrace|mtrace-check)\([0-9]\)`' README.md doc/*.md |
	sed -E 's/`([^(]*)\(([0-9])\)`/\1.\2/'; } | sort -u)
# The recipes of the top Makefile's install and uninstall targets.
install=$(sed -n '/^install:/,/^$/p' "$TOP/Makefile")
uninstall=$(sed -n '/^uninstall:/,/^$/p' "$TOP/Makefile")
for page in $pages; do
	if [ -e "$TOP/doc/$page" ] && [[ $install == *"doc/$page"* || $install == *"$page "*"man${page##*.}"* ]] &&
		[[ $uninstall == *"man${page##*.}/$page"* ]]; then ok; else
		bad "the page $page is named but not in doc/, or not installed and uninstalled"; fi
done
[ -n "$pages" ] || bad "no page references found"
# Every call and macro memleak.h offers (not its helpers, which end in
# "_") is in the NAME of libmtrace(3) and memleak_report(3).
api=$(grep -ohE '^(static inline [a-z ]+\*?|#define )(memleak|MEMLEAK)_[A-Za-z_]*[a-zA-Z]\(' "$TOP/include/memleak.h" |
	grep -oE '(memleak|MEMLEAK)_[A-Za-z_]*[a-zA-Z]' | sort -u)
for page in libmtrace.3 memleak_report.3; do
	name=$(sed -n '/^\.SH NAME/,/^\.SH/p' "$TOP/doc/$page" 2>/dev/null)
	for f in $api; do
		if [[ $name == *"$f"[,\ ]* ]]; then ok; else bad "$page: $f is not documented"; fi
	done
done
[ "$(echo "$api" | wc -w)" -ge 7 ] || bad "memleak.h: only $(echo $api) found"
# mtrace-check(1)'s JSON OUTPUT: each schema block has as many closing
# braces and brackets as opening ones (no stray fragment).
blocks=$(awk '/^\.SH JSON OUTPUT/ { on = 1; next } /^\.SH/ { on = 0 }
	on && /^\.nf/ { b++; next } on && /^\.fi/ { next }
	on && b { gsub(/[^][{}]/, ""); o[b] = o[b] $0 }
	END { for (i = 1; i <= b; i++) {
		t = o[i]; c = gsub(/{/, "", t) - gsub(/}/, "", t); s = gsub(/\[/, "", t) - gsub(/\]/, "", t)
		if (c || s) print "block " i ": braces " c ", brackets " s } }' "$TOP/doc/mtrace-check.1")
if [ -z "$blocks" ]; then ok; else bad "mtrace-check(1) JSON OUTPUT is unbalanced: $blocks"; fi

echo "checker reading: $pass passed, $failures failed"
[ "$failures" = 0 ]
