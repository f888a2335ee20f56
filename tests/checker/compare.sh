#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# compare.sh - mtrace-check against glibc's /usr/bin/mtrace.
#
# Builds the programs in progs/ (PIE and -no-pie), runs them under glibc's
# own tracer (libc_malloc_debug.so), and requires mtrace-check to print
# byte for byte what /usr/bin/mtrace prints, with the same exit status,
# with and without the BINARY argument.  Then the same on odd logs made by
# gen-logs.pl (quirks of the Perl script, garbage, mutations of real logs),
# the error contract (status 2) and, when libmtrace.so is built, extended
# logs whose stack frames are checked against addr2line.  Every expected
# result comes from /usr/bin/mtrace, addr2line, or the test sources.
#
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
set -u
here=$(cd "$(dirname "$0")" && pwd)
CHECK=$here/../../mtrace-check/mtrace-check
LIBMTRACE=${LIBMTRACE:-$here/../../libmtrace/libmtrace.so}
MTRACE=/usr/bin/mtrace
OUT=$here/out/compare
PROGS=$here/progs
TRACER=
for t in /lib/x86_64-linux-gnu/libc_malloc_debug.so /usr/lib64/libc_malloc_debug.so \
	/lib64/libc_malloc_debug.so; do
	[ -e "$t" ] && TRACER=$t && break
done

if [ ! -x "$MTRACE" ] || ! command -v perl >/dev/null || [ -z "$TRACER" ]; then
	echo "checker comparison: skipped (/usr/bin/mtrace or libc_malloc_debug.so absent;" \
	     "install libc-devtools)"
	exit 0
fi

pass=0
failures=0
not_trace_later=()
rm -rf "$OUT"
mkdir -p "$OUT"

ok() { pass=$((pass + 1)); }
bad() {
	failures=$((failures + 1))
	echo "FAIL: $*"
}

# run_both DIR ARGS...: both checkers in DIR, outputs in $OUT/.perl.* and
# $OUT/.c.*; stdin is closed so nothing can wait on it.  mtrace-check runs
# with and without its reader thread in turn (MTRACE_CHECK_THREADS).
runs=0
run_both() {
	local dir=$1
	shift
	runs=$((runs + 1))
	(cd "$dir" && "$MTRACE" "$@" >"$OUT/.perl.out" 2>/dev/null </dev/null
	 echo $? >"$OUT/.perl.rc")
	(cd "$dir" && MTRACE_CHECK_THREADS=$((runs % 2 * 2)) timeout 60 "$CHECK" "$@" \
		>"$OUT/.c.out" 2>"$OUT/.c.err" </dev/null
	 echo $? >"$OUT/.c.rc")
}

show_diff() {
	diff "$OUT/.perl.out" "$OUT/.c.out" | head -${DIFF_LINES:-10}
	echo "  status: perl $(cat "$OUT/.perl.rc"), mtrace-check $(cat "$OUT/.c.rc")"
	head -3 "$OUT/.c.err"
}

# same DIR ARGS...: identical stdout and exit status.
same() {
	run_both "$@"
	if cmp -s "$OUT/.perl.out" "$OUT/.c.out" && cmp -s "$OUT/.perl.rc" "$OUT/.c.rc"; then
		ok
	else
		bad "(cd $1 && mtrace ${*:2}) differs"
		show_diff
	fi
}

# same_prefix DIR ARGS...: for extended logs, mtrace-check prints what the
# Perl script prints, then more; exit status identical.
same_prefix() {
	run_both "$@"
	local n
	n=$(stat -c %s "$OUT/.perl.out")
	if cmp -s -n "$n" "$OUT/.perl.out" "$OUT/.c.out" && cmp -s "$OUT/.perl.rc" "$OUT/.c.rc"; then
		ok
	else
		bad "(cd $1 && mtrace ${*:2}) is not a prefix of mtrace-check's output"
		show_diff
	fi
}

# every_form DIR PROG LOG: the binary given as NAME, ./NAME, absolute, none.
every_form() {
	local dir=$1 prog=$2 log=$3
	same "$dir" "$prog" "$log"
	same "$dir" "./$prog" "$log"
	same "$dir" "$dir/$prog" "$log"
	same "$dir" "$log"
}

glibc_traced() {
	local log=$1
	shift
	(cd "$OUT" && MALLOC_TRACE=$log LD_PRELOAD=$TRACER timeout 60 "$@" >/dev/null 2>&1)
}

# threads_log LOG PROGRAM ROUNDS: a threaded run whose glibc log has the
# tracer's races in it (free logged after the real free): tcache off and
# one arena make a freed block the very next one another thread gets.  The
# race depends on scheduling, so keep the run with the most warnings.
threads_log() {
	local log=$1 best=-1 n
	shift
	for try in 1 2 3 4; do
		GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 \
			glibc_traced "$log.try" "$@"
		n=$("$MTRACE" "$OUT/$log.try" 2>/dev/null | grep -c "duplicate\|never alloc'd")
		if [ "$n" -gt "$best" ]; then
			best=$n
			mv "$OUT/$log.try" "$OUT/$log"
		fi
		[ "$best" -ge 40 ] && break
	done
	echo "   $log: $(wc -l <"$OUT/$log") lines, $best duplicate/never-alloc'd warnings"
}

build() {
	local out=$1
	shift
	"$@" -o "$OUT/$out" || { bad "cannot build $out"; return 1; }
}

echo "== building test programs"
build basic-pie gcc -g -O0 -pie -fPIE "$PROGS/basic.c"
build basic-nopie gcc -g -O0 -no-pie "$PROGS/basic.c"
build threads-pie gcc -g -O1 -pthread "$PROGS/threads.c"
build threads-nopie gcc -g -O1 -no-pie -pthread "$PROGS/threads.c"
build optimized-pie gcc -g -O2 "$PROGS/optimized.c"
build optimized-nopie gcc -g -O2 -no-pie "$PROGS/optimized.c"
build plugin.so gcc -g -O0 -shared -fPIC "$PROGS/plugin.c"
build useplugin gcc -g -O0 "$PROGS/useplugin.c" -ldl
build cxx-pie g++ -g -O0 "$PROGS/cxx.cc"
build cxx-nopie g++ -g -O0 -no-pie "$PROGS/cxx.cc"
build stripped gcc -O0 -s "$PROGS/basic.c"
# No DWARF, a full symbol table: functions come from the symbol table alone
# (mtrace-check/symbolize/symindex.c).
build nodebug gcc -O2 "$PROGS/optimized.c"
build cxx-nodebug g++ -O0 "$PROGS/cxx.cc"

echo "== glibc tracer logs, every form of the BINARY argument"
for v in pie nopie; do
	glibc_traced basic-$v.log ./basic-$v a b
	every_form "$OUT" basic-$v basic-$v.log
	glibc_traced optimized-$v.log ./optimized-$v
	every_form "$OUT" optimized-$v optimized-$v.log
	glibc_traced cxx-$v.log ./cxx-$v
	every_form "$OUT" cxx-$v cxx-$v.log
	for r in 1 2 3; do
		threads_log threads-$v-$r.log ./threads-$v $((2500 * r * r))
		every_form "$OUT" threads-$v threads-$v-$r.log
	done
done
glibc_traced plugin.log ./useplugin ./plugin.so
every_form "$OUT" useplugin plugin.log
glibc_traced stripped.log ./stripped
every_form "$OUT" stripped stripped.log
for p in nodebug cxx-nodebug; do
	glibc_traced $p.log ./$p
	every_form "$OUT" $p $p.log
done

echo "== a BINARY that is not the traced program, not ELF, or missing"
printf 'not an executable\n' >"$OUT/notelf"
printf '#!/bin/sh\necho "x => /bin/true (0x1000)"\n' >"$OUT/script"
chmod +x "$OUT/script"
same "$OUT" threads-pie basic-pie.log
same "$OUT" cxx-nopie basic-nopie.log
same "$OUT" notelf basic-pie.log
same "$OUT" /etc/passwd basic-pie.log
same "$OUT" "$OUT" basic-pie.log

echo "== odd logs: the Perl script's quirks, garbage, mutations"
perl "$here/gen-logs.pl" "$OUT/syn" "$OUT"/basic-pie.log "$OUT"/threads-pie-1.log \
	"$OUT"/cxx-pie.log "$OUT"/plugin.log "$OUT"/basic-nopie.log
# is_trace LOG: the file has a line only an mtrace log has ("= Start", or
# an event whose address starts "0x" and a hex digit), split as Perl's
# split(' ') splits it; mtrace-check refuses any other file (status 2)
# where the script prints "No memory leaks.".
is_trace() {
	perl -ne 'my @f = split " "; splice(@f, 0, 2) if @f && $f[0] eq "@";
		$t = 1 if @f > 1 && (($f[0] eq "=" && $f[1] eq "Start") ||
			($f[0] =~ /^[-+<>!]$/ && $f[1] =~ /^0x[0-9a-fA-F]/));
		END { exit($t ? 0 : 1) }' "$1"
}
not_traces=0
for f in "$OUT"/syn/*.log; do
	if ! is_trace "$f"; then
		not_traces=$((not_traces + 1))
		not_trace_later+=("syn/$(basename "$f")")
		continue
	fi
	cmp=same
	case $f in */ext-*) cmp=same_prefix ;; esac
	$cmp "$OUT" "syn/$(basename "$f")"
	$cmp "$OUT" basic-pie "syn/$(basename "$f")"
done
# garbage.log and only-newlines.log at least.
if [ "$not_traces" -ge 2 ]; then ok; else bad "only $not_traces odd logs are not traces"; fi

echo "== a glibc log of a program that allocates nothing: \"= Start\", \"= End\""
printf '#include <mcheck.h>\nint main(void) { mtrace(); muntrace(); return 0; }\n' >"$OUT/none.c"
build none gcc -O0 "$OUT/none.c"
glibc_traced none.log ./none
if [ "$(cat "$OUT/none.log")" = "$(printf '= Start\n= End')" ]; then ok; else
	bad "the glibc log of a program that allocates nothing is not '= Start', '= End'"; fi
every_form "$OUT" none none.log
# The same from standard input.
(cd "$OUT" && "$MTRACE" none - <none.log >.perl.out 2>/dev/null; echo $? >.perl.rc
 "$CHECK" none - <none.log >.c.out 2>.c.err; echo $? >.c.rc)
if cmp -s "$OUT/.perl.out" "$OUT/.c.out" && cmp -s "$OUT/.perl.rc" "$OUT/.c.rc"; then ok; else
	bad "the log of a program that allocates nothing, from standard input"; show_diff; fi

echo "== standard input"
(cd "$OUT" && "$MTRACE" basic-pie basic-pie.log >.perl.out 2>/dev/null; echo $? >.perl.rc
 "$CHECK" basic-pie - <basic-pie.log >.c.out 2>.c.err; echo $? >.c.rc)
if cmp -s "$OUT/.perl.out" "$OUT/.c.out" && cmp -s "$OUT/.perl.rc" "$OUT/.c.rc"; then ok; else
	bad "reading the log from standard input"; show_diff; fi

echo "== errors: status 2 and a message"
# expect_status STATUS DESCRIPTION ARGS...
expect_status() {
	local want=$1 what=$2
	shift 2
	(cd "$OUT" && timeout 60 "$CHECK" "$@" >.c.out 2>.c.err </dev/null; echo $? >.c.rc)
	local got
	got=$(cat "$OUT/.c.rc")
	if [ "$got" = "$want" ] && { [ "$want" != 2 ] || [ -s "$OUT/.c.err" ]; }; then
		ok
	else
		bad "$what: status $got, expected $want"
		head -3 "$OUT/.c.err"
	fi
}
expect_status 2 "missing log" no-such-file.log

# not_trace DESCRIPTION ARGS...: status 2, nothing on standard output, one
# message on standard error naming the file; glibc's script says "No
# memory leaks." for all of these.
not_trace() {
	local what=$1 name=${*: -1}
	shift
	expect_status 2 "$what" "$@"
	if [ ! -s "$OUT/.c.out" ] && grep -q "^mtrace-check: $name: .*not an mtrace log" "$OUT/.c.err"
	then ok; else bad "$what: output, or no message naming $name"; head -3 "$OUT/.c.out" "$OUT/.c.err"; fi
}
# The same bytes every run (a seeded generator), and a line that begins
# as a free record does ("- 0x0" then garbage) among them.
perl -e 'srand(26); print map { chr int rand 256 } 1 .. 100000' >"$OUT/random.bin"
{ head -c 5000 "$OUT/random.bin"; printf '\n- 0x0\223\001z\n@ \377 + 0x1f 0x\n'
  tail -c 5000 "$OUT/random.bin"; } >"$OUT/random-record.bin"
: >"$OUT/empty.log"
not_trace "an empty log" empty.log
not_trace "an empty log after BINARY" basic-pie empty.log
not_trace "/dev/null" /dev/null
not_trace "100 KB of random bytes" random.bin
not_trace "random bytes with a line that looks like a record" random-record.bin
not_trace "/etc/passwd" /etc/passwd
not_trace "the binary alone, no log" basic-pie
not_trace "/bin/ls alone" /bin/ls
not_trace "a JSON check of the binary alone" --json basic-pie
for f in "${not_trace_later[@]}"; do
	not_trace "$f (not a trace)" "$f"
done
(cd "$OUT" && "$CHECK" - <random.bin >.c.out 2>.c.err; echo $? >.c.rc)
if [ "$(cat "$OUT/.c.rc")" = 2 ] && [ ! -s "$OUT/.c.out" ] && grep -q "not an mtrace log" "$OUT/.c.err"
then ok; else bad "random bytes from standard input: status $(cat "$OUT/.c.rc")"; fi
(cd "$OUT" && "$CHECK" basic-pie - </dev/null >.c.out 2>.c.err; echo $? >.c.rc)
if [ "$(cat "$OUT/.c.rc")" = 2 ] && grep -q "empty: not an mtrace log" "$OUT/.c.err"
then ok; else bad "an empty standard input: status $(cat "$OUT/.c.rc")"; fi
# In a JSON list, one is an error entry and the others are reported.
(cd "$OUT" && "$CHECK" --json basic-pie basic-pie.log empty.log none.log >.c.out 2>.c.err; echo $? >.c.rc)
if [ "$(cat "$OUT/.c.rc")" = 2 ] && perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
	my @l = @{$j->{logs}}; exit !(@l == 3 && $l[1]{error} =~ /not an mtrace log/ &&
	$l[0]{totals} && $l[2]{totals})' <"$OUT/.c.out"; then ok; else
	bad "--json with an empty log among others"; head -c 300 "$OUT/.c.out"; fi

echo "== a BINARY that does not exist"
expect_status 2 "a missing BINARY" ./nonexistent basic-pie.log
if grep -q "^mtrace-check: ./nonexistent: " "$OUT/.c.err" && [ ! -s "$OUT/.c.out" ]; then ok; else
	bad "a missing BINARY: no message naming it"; head -3 "$OUT/.c.err"; fi
expect_status 2 "a missing BINARY before two logs" ./nonexistent basic-pie.log basic-pie.log
expect_status 2 "an empty BINARY" '' basic-pie.log
if grep -q "empty BINARY" "$OUT/.c.err" && [ ! -s "$OUT/.c.out" ]; then ok; else
	bad "an empty BINARY: no message"; head -3 "$OUT/.c.err"; fi
expect_status 2 "directory as log" .
expect_status 2 "no arguments"
expect_status 2 "three arguments" a b c
expect_status 2 "unknown option" --frobnicate basic-pie.log
expect_status 0 "--help" --help
# expect_message DESCRIPTION PATTERN: the last run's stderr has a line
# matching PATTERN (grep -E).
expect_message() {
	if grep -qE "$2" "$OUT/.c.err"; then ok; else
		bad "$1: no message matching '$2'"; head -5 "$OUT/.c.err"; fi
}
for opt in --fail-on= --suppressions= --html= --folded=; do
	expect_status 2 "empty value: $opt" "$opt" basic-pie.log
	expect_message "empty value: $opt" "^mtrace-check: ${opt%=} needs a value"
done
expect_status 2 "empty value: --suppressions ''" --suppressions '' basic-pie.log
expect_message "empty value: --suppressions ''" "^mtrace-check: --suppressions needs a value"
expect_status 2 "--suppressions without a value" basic-pie.log --suppressions
# Suppressions: "lek:" (a typo) and a line without a type are errors, each
# named by file:line; another sanitizer's kind is ignored, and said so.
printf '# comment\n\nleak:main\nlek:foo\n  thread:foo  \njust words\nleak:\nrace:x\n' >"$OUT/bad.supp"
expect_status 2 "malformed suppressions" --suppressions bad.supp basic-pie basic-pie.log
expect_message "lek:foo" "^mtrace-check: bad.supp:4: unknown suppression type 'lek'"
expect_message "thread:foo" "^mtrace-check: bad.supp:5: 'thread:' suppressions are ThreadSanitizer's: ignored"
expect_message "a line without a type" "^mtrace-check: bad.supp:6: 'just words' is not a suppression"
expect_message "leak: without a pattern" "^mtrace-check: bad.supp:7: 'leak:' without a pattern"
expect_message "race:x" "^mtrace-check: bad.supp:8: 'race:' suppressions are ThreadSanitizer's: ignored"
if [ ! -s "$OUT/.c.out" ]; then ok; else bad "malformed suppressions: a report was printed"; fi
# Only other sanitizers' kinds: told, and the check goes on as without them.
printf 'leak:no_such_function\nthread:foo\nsigned-integer-overflow:bar.c\n' >"$OUT/tsan.supp"
run_both "$OUT" basic-pie basic-pie.log
cp "$OUT/.c.out" "$OUT/.c.plain"
expect_status "$(cat "$OUT/.perl.rc")" "other sanitizers' kinds" --suppressions tsan.supp basic-pie basic-pie.log
expect_message "thread:foo ignored" "^mtrace-check: tsan.supp:2: 'thread:' suppressions are ThreadSanitizer's: ignored"
expect_message "signed-integer-overflow ignored" "^mtrace-check: tsan.supp:3: 'signed-integer-overflow:' suppressions are UndefinedBehaviorSanitizer's: ignored"
if cmp -s "$OUT/.c.out" "$OUT/.c.plain"; then ok; else bad "ignored suppression kinds changed the report"; fi
expect_status 0 "--version" --version
if [ "$(id -u)" != 0 ]; then
	cp "$OUT/basic-pie.log" "$OUT/unreadable.log"
	chmod 000 "$OUT/unreadable.log"
	expect_status 2 "unreadable log" unreadable.log
fi

echo "== --json"
json_ok() {
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
		exit(defined $j->{totals} && ref $j->{leaks} eq "ARRAY" ? 0 : 1)' <"$1"
}
for log in basic-pie.log threads-pie-1.log syn/quirks.log syn/nul-bytes.log; do
	(cd "$OUT" && "$CHECK" --json basic-pie "$log" >.json 2>/dev/null; echo $? >.c.rc)
	(cd "$OUT" && "$MTRACE" basic-pie "$log" >/dev/null 2>&1; echo $? >.perl.rc)
	if json_ok "$OUT/.json" && cmp -s "$OUT/.perl.rc" "$OUT/.c.rc"; then ok; else
		bad "--json on $log: invalid JSON or wrong status"; fi
done

if [ -x "$here/extended.sh" ]; then
	. "$here/extended.sh"
fi

echo "checker comparison: $pass passed, $failures failed"
[ "$failures" = 0 ]
