# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh - helpers for run-tests.sh: running a program under the tracer and
# checking its log with glibc's /usr/bin/mtrace.  Sourced, not executed.
# Expects LIB (the preload library), MODE (libmtrace|glibc) and BUILD.

MTRACE_PL=${MTRACE_PL:-/usr/bin/mtrace}
GLIBC_TRACER=/lib/x86_64-linux-gnu/libc_malloc_debug.so
# Seconds a traced run may take before it counts as hung.  Generous: it
# only turns a hang into a failure, and a run beside busy loops and other
# tests can take minutes on a slow machine; every test uses this one limit.
RUN_TIMEOUT=${RUN_TIMEOUT:-300}

# Diagnostics: tests write "COND || { fail MSG; return 1; }"; skip returns
# 77, which the runner reports as SKIP with the last line printed.
fail() { echo "$*"; return 1; }
note() { echo "note: $*"; }
skip() { echo "$*"; return 77; }

need_libmtrace() {
	[ "$MODE" = libmtrace ] || skip "needs libmtrace.so (running against glibc's tracer)"
}

# limited CMD...: run CMD for at most RUN_TIMEOUT seconds (status 124 when
# it timed out).  timeout puts CMD in a process group of its own; whatever
# is left in it afterwards (a child stuck in a deadlock with every signal
# blocked outlives its parent) is killed.
limited() {
	local pid st
	timeout -k 5 "$RUN_TIMEOUT" "$@" &
	pid=$!
	wait $pid
	st=$?
	kill -KILL -- -$pid 2>/dev/null
	return $st
}

. "$(dirname "${BASH_SOURCE[0]}")/../common/wait.sh"

# main_sleeps PID: the process's main thread sleeps in the kernel.
main_sleeps() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0 # gone: stop waiting
	[[ ${stat##*) } == S* ]]
}

# flocked FILE: some process holds a flock() on FILE (seen in /proc/locks,
# without taking the lock, which would race with the holder).
flocked() {
	local ino
	ino=$(stat -c %i "$1" 2>/dev/null) || return 1
	grep -q ":$ino " /proc/locks
}

# limited_or_report CMD...: limited, but a run that hangs is reported
# before it is killed: every process left in its group, with its signal
# state (a signal that can no longer reach its handler shows as pending and
# blocked) and the stacks of all its threads (gdb), so a rare deadlock says
# which process hung where.  With GROWS=FILE:MB, a run whose FILE grows past
# MB megabytes is taken for hung too (a program looping at full speed, each
# turn logged, would otherwise fill the disk until RUN_TIMEOUT).
limited_or_report() {
	local pid p t start=$SECONDS file=${GROWS%:*} max=$((${GROWS:+${GROWS#*:} *} 1048576)) why=
	setsid "$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		[ $((SECONDS - start)) -lt "$RUN_TIMEOUT" ] || { why="still running after ${RUN_TIMEOUT}s"; break; }
		[ -z "$GROWS" ] || [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -le $max ] ||
			{ why="$file past ${GROWS#*:} MB after $((SECONDS - start))s"; break; }
		sleep 0.2
	done
	if [ -n "$why" ]; then
		for p in $(pgrep -g $pid); do
			echo "hung ($why): pid $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"
			grep -E '^(State|SigQ|ShdPnd|SigIgn|SigCgt)' /proc/$p/status 2>/dev/null | sed 's/^/    /'
			for t in /proc/$p/task/*; do
				echo "    task ${t##*/}: $(grep -E '^(State|SigPnd|SigBlk)' $t/status 2>/dev/null | tr '\n\t' '  ')"
			done
			timeout 60 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null |
				grep -E '^(#|Thread)' | head -40 | sed 's/^/    /'
		done
		kill -KILL -- -$pid 2>/dev/null
		wait $pid
		return 124
	fi
	wait $pid
}

# traced LOG [VAR=VALUE...] PROGRAM ARGS...: run under the preload.  env is
# started without LD_PRELOAD, so only PROGRAM (and its children) are traced.
traced() {
	local log=$1
	shift
	limited env MALLOC_TRACE="$log" LD_PRELOAD="$LIB" "$@"
}

# glibc_traced LOG PROGRAM ARGS...: the same under glibc's own tracer.
glibc_traced() {
	local log=$1
	shift
	limited env MALLOC_TRACE="$log" LD_PRELOAD="$GLIBC_TRACER" "$@"
}

# run_mtrace BINARY LOG: glibc's checker; BINARY "" means none.
run_mtrace() {
	if [ -n "$1" ]; then
		"$MTRACE_PL" "$1" "$2" 2>&1
	else
		"$MTRACE_PL" "$2" 2>&1
	fi
	case $? in 0 | 1) return 0 ;; *) return 1 ;; esac
}

# A leak row of mtrace's report: "%#018x %#8x  at %s" (a size 0 is "0").
LEAK_ROW='^0x[0-9a-f]+ +(0x[0-9a-f]+|0)  at '

# leak_sizes: the sizes (decimal, sorted, space-separated) in mtrace output.
# Bash only, no subprocess but one sort: these helpers run for every log of
# every test, and on a slow machine each process costs milliseconds.
leak_sizes() {
	local line sizes=()
	while IFS= read -r line; do
		[[ $line =~ $LEAK_ROW ]] && sizes+=($((BASH_REMATCH[1])))
	done <<<"$1"
	[ ${#sizes[@]} -gt 0 ] || return 0
	printf '%s\n' "${sizes[@]}" | sort -n | paste -sd ' '
}

# has_bogus OUT: mtrace output OUT has a duplicate or never-alloc'd line.
has_bogus() {
	[[ $1 == *duplicate* || $1 == *"never alloc'd"* ]]
}

bogus_count() {
	grep -cE "duplicate|never alloc'd" <<<"$1"
}

# expect_leaks BINARY LOG "SIZE ...": mtrace lists exactly these leaks
# ("" = "No memory leaks."), with no duplicate/never-alloc'd lines.  The
# mtrace output is left in MTRACE_OUT.
expect_leaks() {
	[ -s "$2" ] || fail "log $2 missing or empty" || return 1
	MTRACE_OUT=$(run_mtrace "$1" "$2") ||
		fail "mtrace failed on $2: $MTRACE_OUT" || return 1
	leaks_listed "$2" "$3"
}

# leaks_listed LOG "SIZE ...": expect_leaks's checks on MTRACE_OUT, mtrace's
# output for LOG (for a test that needs that output first).
leaks_listed() {
	local log=$1 want=$2 got
	if has_bogus "$MTRACE_OUT"; then
		fail "$log: $(bogus_count "$MTRACE_OUT") duplicate/never-alloc'd lines, e.g.:"
		grep -m5 -E "duplicate|never alloc'd" <<<"$MTRACE_OUT"
		return 1
	fi
	got=$(leak_sizes "$MTRACE_OUT")
	if [ "$got" != "$want" ]; then
		fail "$log: leaks [$got], expected [$want]"
		echo "$MTRACE_OUT" | head -20
		return 1
	fi
	if [ -z "$want" ] && [[ $'\n'$MTRACE_OUT$'\n' != *$'\nNo memory leaks.\n'* ]]; then
		fail "$log: no 'No memory leaks.' line"
		return 1
	fi
	[ "$MODE" != libmtrace ] || check_grammar "$log"
}

# leak_callers_match REGEX: every leak row of MTRACE_OUT is "at" REGEX.
leak_callers_match() {
	local bad
	bad=$(grep -E "$LEAK_ROW" <<<"$MTRACE_OUT" | grep -vE "  at .*$1")
	[ -z "$bad" ] || fail "leak rows not attributed to $1:" "$bad"
}

# check_grammar LOG...: every line of each extended log obeys doc/format.md,
# every event carries a stack id defined before it, every frame a known
# module.  One awk for all the logs given.
check_grammar() {
	local bad
	[ $# -gt 0 ] || return 0
	bad=$(awk -f "$HERE/grammar.awk" "$@") || {
		fail "$bad (violates doc/format.md)"
		return 1
	}
}

# is_extended LOG: LOG was written by libmtrace (its second line is "#v").
is_extended() {
	local first second
	{ IFS= read -r first && IFS= read -r second; } <"$1" 2>/dev/null
	[[ $second == "#v "* ]]
}

# log_field LOG KEY: the value of KEY=VALUE in the "#v" header.
log_field() {
	awk -v k="$2" '$1 == "#v" { for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }' "$1"
}

# log_program LOG: the "#p" path, the third line of an extended log's
# header (doc/format.md); a classic log has none.
log_program() {
	local line n
	for ((n = 0; n < 3; n++)); do
		IFS= read -r line || return 0
		[[ $line == "#p "* ]] && { echo "${line#\#p }"; return 0; }
	done <"$1"
}

# stack_of LOG SIZE: "PATH OFFSET" per frame of the stack of the first
# allocation ("+" or ">") of SIZE bytes (decimal).
stack_of() {
	awk -v size="$(printf '%#x' "$2")" -f "$HERE/stack_of.awk" "$1"
}

# stack_functions LOG SIZE: the demangled function names (inlined ones
# included) of that stack, one per line, resolved with addr2line for the
# frames in our test programs (modules under BUILD); "?" for the others.
stack_functions() {
	local path off
	stack_of "$1" "$2" | while read -r path off; do
		if [[ $path == "$BUILD"/* ]] && [ -f "$path" ]; then
			addr2line -f -i -C -e "$path" "$(printf '%#x' $((off - 1)))" |
				awk 'NR % 2 == 1'
		else
			echo "?"
		fi
	done
}

# expect_stack LOG SIZE FUNCTION...: each FUNCTION (a regex on the whole
# name) appears in the stack of the SIZE-byte allocation.
expect_stack() {
	local log=$1 size=$2 funcs f
	shift 2
	funcs=$(stack_functions "$log" "$size")
	for f in "$@"; do
		grep -qE "^($f)$" <<<"$funcs" || {
			fail "stack of the $size-byte block lacks '$f'; it has:" $funcs
			return 1
		}
	done
}

# expect_stack_top LOG SIZE FUNCTION...: the stack of the SIZE-byte
# allocation starts with exactly these functions, in this order, a frame
# each (a frame written twice or left out fails; no regexes).
expect_stack_top() {
	local log=$1 size=$2 got want
	shift 2
	got=$(stack_functions "$log" "$size" | head -n $#)
	want=$(printf '%s\n' "$@")
	[ "$got" = "$want" ] || {
		fail "stack of the $size-byte block starts with" $got "instead of" "$@"
		return 1
	}
}

# check_symbol_records LOG: every "#f MID 0xOFF 0xSYMOFF NAME" names a
# dynamic symbol of the module starting at OFF - SYMOFF (as nm -D -C lists
# it, version suffix dropped; any of the aliases at that address).  One nm
# per module, then no process per record.
check_symbol_records() {
	local rec path off soff name addr bad=0 recs=() paths
	local -A have=()
	mapfile -t recs < <(awk '$1 == "#m" { p = $0; sub(/^#m [^ ]+ [^ ]+ [^ ]+ /, "", p); path[$2] = p }
		$1 == "#f" { n = $0; sub(/^#f [^ ]+ [^ ]+ [^ ]+ /, "", n); printf "%s\t%s\t%s\t%s\n", path[$2], $3, $4, n }' "$1")
	mapfile -t paths < <(printf '%s\n' "${recs[@]%%$'\t'*}" | sort -u)
	for path in "${paths[@]}"; do
		while IFS=$'\t' read -r addr name; do
			have["$path|$addr|$name"]=1
		done < <(nm -D -C --defined-only "$path" 2>/dev/null |
			awk '{ x = $1; sub(/^0+/, "", x); n = $0; sub(/^[^ ]+ [^ ]+ /, "", n); sub(/@.*$/, "", n); print x "\t" n }')
	done
	for rec in "${recs[@]}"; do
		IFS=$'\t' read -r path off soff name <<<"$rec"
		printf -v addr '%x' $((off - soff))
		[ -n "${have["$path|$addr|$name"]}" ] && continue
		fail "#f $off $soff '$name': no such symbol at 0x$addr in $path"
		bad=1
	done
	return $bad
}

# max_frames LOG: the largest number of frames in a "#s" record.
max_frames() {
	awk '$1 == "#s" && NF - 2 > m { m = NF - 2 } END { print m + 0 }' "$1"
}
min_frames() {
	awk '$1 == "#s" && (m == "" || NF - 2 < m) { m = NF - 2 } END { print m + 0 }' "$1"
}

# trace_logs BASE: BASE and the per-process logs BASE.*, one per line (not
# the "*.memlog" leak reports libmtrace writes beside them).
trace_logs() {
	local f
	for f in "$1" "$1".*; do
		[ -e "$f" ] && [[ $f != *.memlog ]] && echo "$f"
	done
	return 0
}

# check_trace_logs BASE: check_all_logs on every log of trace_logs BASE.
check_trace_logs() {
	local logs
	mapfile -t logs < <(trace_logs "$1")
	check_all_logs "${logs[@]}"
}

# check_all_logs LOG...: mtrace every log (with the binary from its "#p"
# record) and fail on any never-alloc'd or duplicate line; extended logs
# must also follow the grammar.
check_all_logs() {
	local f bin out rc=0 ext=()
	for f in "$@"; do
		[ -f "$f" ] || continue
		bin=$(log_program "$f")
		out=$(run_mtrace "$bin" "$f") || { fail "mtrace failed on $f"; rc=1; continue; }
		if has_bogus "$out"; then
			fail "$f ($bin): $(bogus_count "$out") duplicate/never-alloc'd lines, e.g.:"
			grep -m3 -E "duplicate|never alloc'd" <<<"$out"
			rc=1
		fi
		[ "$MODE" != libmtrace ] || ! is_extended "$f" || ext+=("$f")
	done
	check_grammar "${ext[@]}" || rc=1
	return $rc
}

# check_checker_logs LOG...: mtrace-check (ours) on every log, with the
# binary from its "#p" record: no never-alloc'd or duplicate line either.
MTRACE_CHECK=$(realpath -m "$HERE/../../mtrace-check/mtrace-check")
check_checker_logs() {
	local f out bin rc=0
	for f in "$@"; do
		# A classic log names no program: no BINARY operand (an empty one
		# is a missing file to mtrace-check).
		bin=$(log_program "$f")
		out=$("$MTRACE_CHECK" ${bin:+"$bin"} "$f" 2>&1)
		[ $? -le 1 ] || { fail "mtrace-check failed on $f: $out"; rc=1; continue; }
		! has_bogus "$out" || { fail "$f: mtrace-check: $(grep -m3 -E "duplicate|never alloc'd" <<<"$out")"; rc=1; }
	done
	return $rc
}
