# SPDX-License-Identifier: GPL-3.0-or-later
# tests-process.sh - threads, fork, exec, setuid and failing writes.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

THREAD_RUNS=5

# 4 threads with cross-thread frees and reallocs: 0 bogus lines every run.
# glibc's own tracer is run the same way for comparison (reported only).
t_threads() {
	local i counts=() out
	for i in $(seq $THREAD_RUNS); do
		rm -f log
		traced log "$BUILD/threads" >out 2>err || { fail "run $i: exit status $?"; return 1; }
		expect_leaks "$BUILD/threads" log "1000 1001 1002 1003" || { fail "run $i"; return 1; }
	done
	for i in $(seq $THREAD_RUNS); do
		rm -f glibc.log
		glibc_traced glibc.log "$BUILD/threads" >/dev/null 2>&1
		out=$(run_mtrace "" glibc.log)
		counts+=("$(bogus_count "$out")")
	done
	note "glibc libc_malloc_debug.so on the same program: ${counts[*]} duplicate/never-alloc'd lines in $THREAD_RUNS runs"
}

# Thread-exit destructors free blocks after the thread's code is done.
t_thread_exit() {
	leak_run thread_exit 77 || return 1
	grep -q '^joined 50$' out || { fail "output: $(cat out)"; return 1; }
}

# C++ thread_local destructors free their blocks as each thread exits.
t_tls_dtors() {
	leak_run tls_dtors 64
}

# 400000 blocks live at once, freed cross-thread.
t_bigheap() {
	leak_run bigheap "2222 3333"
}

# mtrace() while other threads allocate; frees of older blocks unlogged.
t_late_start() {
	leak_run late_start "1234 4321"
}

# muntrace() while other threads are busy: "= End" last, nothing bogus.
t_muntrace_threads() {
	local out
	traced log "$BUILD/late_start" stop >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	[ "$(tail -n1 log)" = "= End" ] || { fail "last line is not '= End': $(tail -n1 log)"; return 1; }
	out=$(run_mtrace "$BUILD/late_start" log) || { fail "mtrace failed"; return 1; }
	[ "$(bogus_count "$out")" -eq 0 ] || { fail "bogus lines:"; grep -m5 -E "duplicate|never" <<<"$out"; return 1; }
	[ "$MODE" != libmtrace ] || check_grammar log
}

# main returns while threads still allocate (3 runs): normal exit, no
# bogus lines, every line complete.
t_exit_busy() {
	local i out
	for i in 1 2 3; do
		rm -f log
		traced log "$BUILD/exit_busy" >out 2>err || { fail "run $i: exit status $?: $(cat err)"; return 1; }
		out=$(run_mtrace "" log) || { fail "mtrace failed"; return 1; }
		[ "$(bogus_count "$out")" -eq 0 ] || { fail "run $i:"; grep -m5 -E "duplicate|never" <<<"$out"; return 1; }
		[ "$MODE" != libmtrace ] || check_grammar log || return 1
	done
}

# Two traced processes at once with the same MALLOC_TRACE: the first (a
# "sleep 4" traced from load) holds LOG; the second must not truncate it and
# writes LOG.<pid>.  A later run reuses LOG, which no live process holds.
t_concurrent() {
	need_libmtrace || return
	local i other
	traced log MEMLEAK_CONFIG=mtraceinit sleep 4 &
	for i in $(seq 100); do [ -e log ] && break; sleep 0.05; done
	traced log "$BUILD/threads" >out 2>&1 || { fail "threads run: $(cat out)"; return 1; }
	wait
	[[ "$(log_program log)" == */sleep ]] || { fail "LOG is not sleep's: $(log_program log)"; return 1; }
	other=$(trace_logs log | grep -v '^log$')
	[ "$(wc -w <<<"$other")" -eq 1 ] || { fail "logs: $(trace_logs log)"; return 1; }
	expect_leaks "$BUILD/threads" "$other" "1000 1001 1002 1003" || return 1
	check_all_logs log || return 1
	rm -f log.*
	leak_run leak_static "63 100 200 5000" || return 1
	[ "$(trace_logs log)" = log ] || { fail "a rerun did not reuse LOG: $(trace_logs log)"; return 1; }
}

# A stale LOG left by an earlier, dead process that had the same pid (pids
# repeat, e.g. pid 1 in every container run) is not "the image before an
# exec()": the new run must write LOG itself, not LOG.<pid>.  The stale
# file is made by a shell that then execs the traced program.
t_stale_log() {
	need_libmtrace || return
	limited bash -c 'printf "= Start\n#v 1 pid=%s ppid=1\n" $$ >log; exec env MALLOC_TRACE=log LD_PRELOAD="$1" "$2"' \
		_ "$LIB" "$BUILD/leak_static" 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	[ "$(trace_logs log)" = log ] || { fail "logs: $(trace_logs log | tr '\n' ' ')(LOG not reused)"; return 1; }
	expect_leaks "$BUILD/leak_static" log "63 100 200 5000"
}

# "%p" in MALLOC_TRACE is replaced by the process id.
t_percent_p() {
	need_libmtrace || return
	local pid
	traced 'log.%p' MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_child" >out 2>err
	pid=$(awk '{ print $3 }' out)
	[ -f "log.$pid" ] || { fail "no log.$pid; files: $(ls)"; return 1; }
	expect_leaks "$BUILD/exec_child" "log.$pid" "321 654"
}

# The same guarantees hold for classic logs and for the other unwinders.
t_threads_configs() {
	need_libmtrace || return
	local conf mode
	for conf in classic unwind=glibc unwind=fp depth=1; do
		rm -f log
		traced log MEMLEAK_CONFIG=$conf "$BUILD/threads" >out 2>err || { fail "$conf: exit status $?"; return 1; }
		[ ! -s err ] || { fail "$conf: stderr: $(head -c 300 err)"; return 1; }
		mode=$MODE
		[ $conf != classic ] || mode=classic
		MODE=$mode expect_leaks "$BUILD/threads" log "1000 1001 1002 1003" || { fail "$conf"; return 1; }
	done
}

t_fork_classic() {
	need_libmtrace || return
	local child
	traced log MEMLEAK_CONFIG=classic "$BUILD/fork" _exit >out 2>err || { fail "exit status $?"; return 1; }
	child=$(awk '$1 == "child" { print $2 }' out)
	MODE=classic expect_leaks "$BUILD/fork" log "111 444" || { fail "(parent log)"; return 1; }
	MODE=classic expect_leaks "$BUILD/fork" "log.$child" "222 333" || { fail "(child log)"; return 1; }
	! grep -q '^#' log "log.$child" || { fail "'#' records in a classic log"; return 1; }
}

# fork_case PROGRAM exit|_exit: the child writes its own self-contained log.
fork_case() {
	local prog=$1 ppid child addr
	traced log "$BUILD/$prog" "$2" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	child=$(awk '$1 == "child" { print $2 }' out)
	[ -n "$child" ] || { fail "no child pid printed"; return 1; }
	expect_leaks "$BUILD/$prog" log "111 444" || { fail "(parent log)"; return 1; }
	[ -f "log.$child" ] || { fail "no child log log.$child; files: $(ls)"; return 1; }
	expect_leaks "$BUILD/$prog" "log.$child" "222 333" || { fail "(child log)"; return 1; }
	[ "$(trace_logs log | wc -l)" -eq 2 ] || { fail "unexpected logs: $(trace_logs log)"; return 1; }
	ppid=$(log_field log pid)
	[ -n "$ppid" ] && [ "$(log_field "log.$child" forked-from)" = "$ppid" ] ||
		{ fail "child header: $(sed -n 2p "log.$child"), parent pid $ppid"; return 1; }
	[ "$(log_field "log.$child" pid)" = "$child" ] || { fail "child #v pid is not $child"; return 1; }
	no_child_events log || return 1
}

# no_child_events LOG: the parent log has neither the child's 333-byte block
# nor a free of the 111-byte block (which only the child frees).
no_child_events() {
	local addr
	grep -qE '(^|[^<>!]) \+ 0x[0-9a-f]+ 0x14d( |$)' "$1" && { fail "child's 333-byte block in the parent log"; return 1; }
	addr=$(awk '{ i = ($1 == "@") ? 3 : 1 } $i == "+" && $(i + 2) == "0x6f" { print $(i + 1); exit }' "$1")
	[ -n "$addr" ] || { fail "no 111-byte block in the parent log"; return 1; }
	! grep -qE "(^| )[-<] $addr( |\$)" "$1" || { fail "child's free of $addr in the parent log"; return 1; }
}

t_fork_exit() { fork_case fork exit; }
t_fork__exit() { fork_case fork _exit; }
t_fork_O0() { fork_case fork_O0 _exit; }

# Fork while another thread hammers malloc: no deadlock, every child log clean.
t_fork_threads() {
	local n=60 logs st RUN_TIMEOUT=20
	traced log "$BUILD/fork_threads" $n >out 2>err
	st=$?
	[ $st -ne 124 ] || { fail "timed out after ${RUN_TIMEOUT}s (deadlock?): $(cat out)"; return 1; }
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	expect_leaks "$BUILD/fork_threads" log "" || return 1
	[ "$MODE" = libmtrace ] || return 0
	logs=$(trace_logs log | grep -vc '^log$')
	[ "$logs" -eq $n ] || { fail "$logs child logs, expected $n"; return 1; }
	check_children log
}

# Fork while another thread is inside dlopen()/dlclose(): no deadlock,
# every child log clean.
t_fork_dlopen() {
	local n=60 st RUN_TIMEOUT=20
	traced log "$BUILD/fork_dlopen" "$BUILD/plugin.so" $n >out 2>err
	st=$?
	[ $st -ne 124 ] || { fail "timed out after ${RUN_TIMEOUT}s (deadlock?): $(cat out)"; return 1; }
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	expect_leaks "$BUILD/fork_dlopen" log "" || return 1
	[ "$MODE" = libmtrace ] || return 0
	check_children log
}

# check_children LOG: in every LOG.* no bogus lines, the child's own
# blocks freed, the grammar kept.
check_children() {
	local f out
	for f in "$1".*; do
		[ -e "$f" ] && [[ $f != *.memlog ]] || continue
		out=$(run_mtrace "" "$f")
		[ "$(bogus_count "$out")" -eq 0 ] || { fail "$f:"; grep -m3 -E "duplicate|never" <<<"$out"; return 1; }
		! grep -qE ' 0x(1092|1f40)  at ' <<<"$out" || { fail "$f: child's own block leaked"; return 1; }
		check_grammar "$f" || return 1
	done
}

# exec_case fork|system: a traced child inheriting the environment writes
# its own log and leaves the parent's intact.
exec_case() {
	local child_pid f child_logs=()
	traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" "$1" "$BUILD/exec_child" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	grep -q '^child status 7$' out || { fail "child did not run: $(cat out)"; return 1; }
	child_pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
	[[ "$(log_program log)" == */exec_parent ]] || { fail "./log is not the parent's: #p $(log_program log)"; return 1; }
	expect_leaks "$BUILD/exec_parent" log "123 124" || { fail "(parent log)"; return 1; }
	for f in $(trace_logs log); do
		[[ "$(log_program "$f")" == */exec_child ]] && child_logs+=("$f")
	done
	[ ${#child_logs[@]} -eq 1 ] || { fail "exec_child logs: ${child_logs[*]} (all: $(ls))"; return 1; }
	[[ ${child_logs[0]} =~ ^log\.$child_pid(\.[0-9]+)?$ ]] ||
		{ fail "child log named ${child_logs[0]}, child pid $child_pid"; return 1; }
	expect_leaks "$BUILD/exec_child" "${child_logs[0]}" "321 654" || return 1
	note "logs: $(for f in $(trace_logs log); do printf '%s=%s ' "$f" "$(basename "$(log_program "$f")")"; done)"
	check_trace_logs log
}

# The traced process exec()s without forking: LOG keeps the old image's
# events (flushed before the exec), the new image writes LOG.<pid>.
t_exec_self() {
	need_libmtrace || return
	local pid
	traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" exec "$BUILD/exec_child" >out 2>err
	[ $? -eq 7 ] || { fail "exit status is not the child's 7: $(cat out err)"; return 1; }
	pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
	expect_leaks "$BUILD/exec_parent" log "123" || { fail "(log of the image before exec)"; return 1; }
	[ "$(log_field log pid)" = "$pid" ] || { fail "LOG pid is not $pid"; return 1; }
	[ -f "log.$pid" ] || { fail "no log.$pid; files: $(ls)"; return 1; }
	[[ "$(log_program "log.$pid")" == */exec_child ]] || { fail "log.$pid is not exec_child's"; return 1; }
	expect_leaks "$BUILD/exec_child" "log.$pid" "321 654"
}

# exec() while another thread allocates: no hang; both logs consistent.
t_exec_threads() {
	need_libmtrace || return
	local pid st
	traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" threads-exec "$BUILD/exec_child" >out 2>err
	st=$?
	[ $st -eq 7 ] || { fail "exit status $st, not the child's 7: $(cat out err)"; return 1; }
	pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
	[ -f "log.$pid" ] || { fail "no log.$pid; files: $(ls)"; return 1; }
	expect_leaks "$BUILD/exec_child" "log.$pid" "321 654" || return 1
	check_all_logs log || return 1
	check_grammar log
}

# A failed exec changes nothing: the program goes on, its log intact.
t_exec_fails() {
	need_libmtrace || return
	exec_case badexec
}

t_exec_fork() { need_libmtrace || return; exec_case fork; }
t_exec_vfork() { need_libmtrace || return; exec_case vfork; }
t_exec_system() { need_libmtrace || return; exec_case system; }

# A setuid program (run by root, owned by nobody: AT_SECURE) ignores
# MALLOC_TRACE.  LD_PRELOAD with a slash is ignored in secure mode, so the
# binary links libmtrace.so directly (rpath) to be sure it is loaded.
t_setuid() {
	need_libmtrace || return
	[ "$(id -u)" -eq 0 ] || { skip "not root: cannot make a setuid binary"; return; }
	id nobody >/dev/null 2>&1 || { skip "no user 'nobody'"; return; }
	chmod 755 "$T" && cp "$LIB" "$T/libmtrace.so" && chmod 755 "$T/libmtrace.so"
	gcc -O2 -o suid "$HERE/progs/leak_static.c" -L"$T" -lmtrace -Wl,-rpath,"$T" ||
		{ fail "cannot build the setuid test binary"; return 1; }
	MALLOC_TRACE=$T/plain.log ./suid || { fail "plain run failed"; return 1; }
	[ -s plain.log ] || { skip "control run wrote no log: libmtrace.so not used by the linked binary"; return; }
	chown nobody suid && chmod 4755 suid && chmod 1777 "$T" || { skip "cannot chown/chmod"; return; }
	is_secure ./suid || { skip "setuid bit not honoured here (nosuid mount?)"; return; }
	echo precious >victim && chmod 666 victim
	MALLOC_TRACE=$T/suid.log ./suid || { fail "setuid run failed"; return 1; }
	[ ! -e suid.log ] && [ -z "$(ls suid.log* 2>/dev/null)" ] || { fail "log created by a setuid program"; return 1; }
	MALLOC_TRACE=$T/victim ./suid
	[ "$(cat victim)" = precious ] || { fail "setuid program wrote MALLOC_TRACE=victim"; return 1; }
}

# is_secure BINARY: the binary runs with an effective uid other than ours.
is_secure() {
	[ "$(stat -c %u "$1")" != "$(id -u)" ] && [ -u "$1" ] &&
		cp /usr/bin/id ./id-probe && chown nobody ./id-probe && chmod 4755 ./id-probe &&
		[ "$(./id-probe -u)" != "$(id -u)" ]
}

# MALLOC_TRACE=/dev/stdout (a common way to see the log): the log arrives
# on stdout complete.  Files a run leaves in /dev are reported and removed.
t_stdout_log() {
	need_libmtrace || return
	local stray
	traced /dev/stdout "$BUILD/leak_static" >log 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	stray=$(find /dev -maxdepth 1 -newer "$T" -name 'stdout.*' 2>/dev/null)
	if [ -n "$stray" ]; then
		note "the run created $stray (removed)"
		rm -f $stray
	fi
	expect_leaks "$BUILD/leak_static" log "63 100 200 5000"
}

# MALLOC_TRACE=/dev/full: one warning, same output and exit status.
t_devfull() {
	local st native_st
	"$BUILD/writefail" >native.out
	native_st=$?
	traced /dev/full "$BUILD/writefail" >out 2>err
	st=$?
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ "$(wc -l <err)" -eq 1 ] && grep -q '^libmtrace:' err ||
		{ fail "stderr is not one 'libmtrace:' line: $(head -c 500 err)"; return 1; }
}

# MALLOC_TRACE names a file that cannot be created: the program runs as
# usual; at most one warning line.
t_unwritable() {
	local st native_st
	"$BUILD/writefail" >native.out
	native_st=$?
	traced /nonexistent-dir/log "$BUILD/writefail" >out 2>err
	st=$?
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ "$(wc -l <err)" -le 1 ] && { [ ! -s err ] || grep -q '^libmtrace:' err; } ||
		{ fail "stderr is not at most one 'libmtrace:' line: $(head -c 500 err)"; return 1; }
	[ ! -s err ] || note "warning: $(cat err)"
}

# A file size limit (ulimit -f) the log outgrows: write(2) raises SIGXFSZ,
# whose default action would kill the program.  It must run as natively.
t_fsize_limit() {
	local st native_st
	(ulimit -f 200 && "$BUILD/writefail") >native.out
	native_st=$?
	(ulimit -f 200 && traced log "$BUILD/writefail") >out 2>err
	st=$?
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st (153 = killed by SIGXFSZ)"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ "$(wc -l <err)" -eq 1 ] && grep -q '^libmtrace:' err ||
		{ fail "stderr is not one 'libmtrace:' line: $(head -c 500 err)"; return 1; }
}

# The log is a FIFO whose reader quits after 1000 bytes: the next writes
# fail (EPIPE, and SIGPIPE would kill the program).  The program must run
# and end as natively, with at most one warning.
t_reader_quits() {
	local st native_st RUN_TIMEOUT=20
	"$BUILD/writefail" >native.out
	native_st=$?
	mkfifo fifo
	timeout 30 bash -c 'exec <fifo; head -c 1000 >/dev/null' &
	traced fifo "$BUILD/writefail" >out 2>err
	st=$?
	wait
	[ $st -ne 124 ] || { fail "hung (timed out after ${RUN_TIMEOUT}s)"; return 1; }
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st (141 = killed by SIGPIPE)"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ "$(wc -l <err)" -le 1 ] && { [ ! -s err ] || grep -q '^libmtrace:' err; } ||
		{ fail "stderr is not at most one 'libmtrace:' line: $(head -c 500 err)"; return 1; }
}

# The program closes every descriptor above 2 and opens ten files of its
# own, which get the lowest free descriptors: none of the log may land in
# them.  (Whether tracing goes on is not checked here.)
t_closefds() {
	local st k
	"$BUILD/closefds" native >native.out || { fail "native run failed"; return 1; }
	traced log "$BUILD/closefds" traced >out 2>err
	st=$?
	[ $st -eq 0 ] || { fail "exit status $st: $(head -c 300 err)"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(head -c 300 out)"; return 1; }
	for k in $(seq 0 9); do
		cmp -s "traced.$k" "native.$k" ||
			{ fail "file $k got $(wc -c <"traced.$k") bytes, not $(wc -c <"native.$k"):"; head -c 300 "traced.$k"; return 1; }
	done
}

# eintr_case MODE READER: the log is a FIFO drained by READER (a bash
# command reading ./fifo) while SIGALRM (no SA_RESTART) fires every 200 us;
# the log must still be whole and the program unchanged.
eintr_case() {
	local st native_st
	"$BUILD/writefail" "$1" >native.out
	native_st=$?
	mkfifo fifo
	timeout 30 bash -c "$2" >got.log &
	traced fifo "$BUILD/writefail" "$1" >out 2>err
	st=$?
	wait
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(head -c 500 err)"; return 1; }
	expect_leaks "$BUILD/writefail" got.log "17 34"
}

# Writes into a pipe that is full for the first 0.5 s: EINTR, partial writes.
t_eintr() {
	eintr_case signals 'exec <fifo; sleep 0.5; exec cat'
}

# The reader opens the FIFO only after 0.3 s, so opening the log blocks
# and is interrupted by the signals: a transient error, to be retried.
t_eintr_open() {
	eintr_case early-signals 'sleep 0.3; exec cat fifo'
}
