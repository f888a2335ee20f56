# SPDX-License-Identifier: GPL-3.0-or-later
# tests-threads.sh - threads: cross-thread frees and reallocs, thread exit,
# tracing started, stopped and finished while other threads allocate.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

THREAD_RUNS=5
GLIBC_RUNS=2 # for the note only: nothing is checked on them

# 4 threads with cross-thread frees and reallocs: 0 bogus lines every run.
# glibc's own tracer is run the same way for comparison (reported only).
t_threads() {
	local i counts=() out
	for i in $(seq $THREAD_RUNS); do
		rm -f log
		traced log "$BUILD/threads" >out 2>err || { fail "run $i: exit status $?"; return 1; }
		expect_leaks "$BUILD/threads" log "1000 1001 1002 1003" || { fail "run $i"; return 1; }
	done
	for i in $(seq $GLIBC_RUNS); do
		rm -f glibc.log
		glibc_traced glibc.log "$BUILD/threads" >/dev/null 2>&1
		out=$(run_mtrace "" glibc.log)
		counts+=("$(bogus_count "$out")")
	done
	note "glibc libc_malloc_debug.so on the same program: ${counts[*]} duplicate/never-alloc'd lines in $GLIBC_RUNS runs"
}

# Producer/consumer pairs hand every block to another thread, which frees
# it at once; addresses come back to the producer (3 runs): the per-thread
# log buffers still give a causally ordered log.
t_handoff() {
	local i counts=() out
	for i in 1 2 3; do
		rm -f log
		traced log "$BUILD/handoff" >out 2>err || { fail "run $i: exit status $?: $(cat err)"; return 1; }
		expect_leaks "$BUILD/handoff" log "500 501" || { fail "run $i"; return 1; }
		[ "$MODE" != libmtrace ] || check_grammar log || return 1
	done
	rm -f glibc.log
	glibc_traced glibc.log "$BUILD/handoff" >/dev/null 2>&1
	out=$(run_mtrace "" glibc.log)
	note "glibc libc_malloc_debug.so on the same program: $(bogus_count "$out") duplicate/never-alloc'd lines"
}

# 2200 threads alive at once, more than there are buffer ids (2047): the
# rest log unbuffered; both kinds free each other's blocks.
t_manythreads() {
	traced log "$BUILD/manythreads" >out 2>err || { fail "exit status $?: $(cat out err)"; return 1; }
	grep -q '^done 2200$' out || { fail "output: $(cat out)"; return 1; }
	expect_leaks "$BUILD/manythreads" log "3000" || return 1
	[ "$MODE" != libmtrace ] || check_grammar log
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

# Dynamic TLS of a dlopen()ed plugin, allocated inside __tls_get_addr.
t_dlopen_tls() {
	leak_run tls_main "" -- "$BUILD/tls_plugin.so"
}

# dlopen()/dlclose() in a loop (the loader allocates under its lock) while
# other threads allocate with new stacks (symbols looked up under the
# loader's lock): no lock-order deadlock, under every configuration.
t_dlopen_race() {
	local conf mode st
	for conf in "" unwind=libunwind unwind=glibc unwind=fp classic; do
		[ "$MODE" = libmtrace ] || [ -z "$conf" ] || continue
		rm -f log
		traced log ${conf:+MEMLEAK_CONFIG=$conf} "$BUILD/dlopen_race" "$BUILD/plugin.so" >out 2>err
		st=$?
		[ $st -ne 124 ] || { fail "${conf:-default}: timed out after ${RUN_TIMEOUT}s (deadlock?)"; return 1; }
		[ $st -eq 0 ] || { fail "${conf:-default}: exit status $st: $(cat err)"; return 1; }
		mode=$MODE
		[ "$conf" != classic ] || mode=classic
		MODE=$mode expect_leaks "$BUILD/dlopen_race" log "" || { fail "${conf:-default}"; return 1; }
	done
}

# Threads cancelled while they allocate: the tracer's write(2) is a
# cancellation point, a thread must not be cancelled inside the tracer
# (holding its lock).  Must not hang.
t_cancel() {
	local st
	traced log "$BUILD/cancel" >out 2>err
	st=$?
	[ $st -ne 124 ] || { fail "timed out after ${RUN_TIMEOUT}s (deadlock?): $(cat out)"; return 1; }
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	grep -q '^rounds 20$' out || { fail "output: $(cat out)"; return 1; }
	expect_leaks "$BUILD/cancel" log ""
}

# 400000 blocks live at once, freed cross-thread.
t_bigheap() {
	leak_run bigheap "2222 3333"
}

# mtrace() while other threads allocate; frees of older blocks unlogged.
t_late_start() {
	leak_run late_start "1234 4321"
}

# mtrace() while another thread runs does not wait for the kernel: the
# library grew the descriptor table for its high log descriptor and
# registered for membarrier(2) at load, while the process had one thread
# (grace.c says why).  Untraced, the same program shows neither, so the
# check can fail.  Each half is checked where this machine allows it: a
# descriptor limit of 1024 or more, membarrier present (EPERM untraced).
t_late_start_grace() {
	need_libmtrace || return
	local fds mb fds0 mb0
	limited "$BUILD/grace" >out 2>err || { fail "untraced: exit status $?"; return 1; }
	read -r _ fds0 _ mb0 <out
	traced log "$BUILD/grace" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	read -r _ fds _ mb <out
	if [ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 1024 ]; then
		[ "${fds0:-0}" -lt 1024 ] || { fail "untraced, the table is already ${fds0}"; return 1; }
		[ "${fds:-0}" -ge 1024 ] || { fail "descriptor table of $fds at main, not grown at load"; return 1; }
	fi
	if [ "$mb0" = 1 ]; then
		[ "$mb" = 0 ] || { fail "membarrier not registered at load (errno $mb)"; return 1; }
	fi
	expect_leaks "$BUILD/grace" log "77"
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
