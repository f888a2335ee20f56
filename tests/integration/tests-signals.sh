# SPDX-License-Identifier: GPL-3.0-or-later
# tests-signals.sh - signal handlers and libmtrace (libmtrace/interpose/sigtramp.c):
# handlers never run inside the tracer, a death by signal still finishes
# the log, and the program sees its own dispositions.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

# A handler that siglongjmp()s out, 1000 times a second: every event after
# the jumps is logged and muntrace() returns, under every unwinder.
t_sigjump() {
	need_libmtrace || return
	local u i st big
	for u in fast libunwind glibc fp; do
		for i in 1 2 3 4 5; do
			rm -f log
			# A run writes about 2 MB of log.
			GROWS=log:256 limited_or_report env MALLOC_TRACE=log LD_PRELOAD="$LIB" \
				MEMLEAK_CONFIG=unwind=$u "$BUILD/sigjump" 20 >out 2>err
			st=$?
			[ $st -ne 124 ] || { fail "$u run $i: hung: $(cat out)"; return 1; }
			[ $st -eq 0 ] || { fail "$u run $i: exit status $st: $(cat err)"; return 1; }
			grep -q '^jumps 20$' out || { fail "$u run $i: $(cat out)"; return 1; }
			[ "$(tail -n1 log)" = "= End" ] || { fail "$u run $i: the log does not end with '= End'"; return 1; }
			big=$(grep -cE '(^| )\+ 0x[0-9a-f]+ 0x3039( |$)' log)
			[ "$big" -eq 1000 ] || { fail "$u run $i: $big of the 1000 malloc(12345) logged"; return 1; }
			# mtrace once (the log is 15 MB): the malloc(100) blocks a
			# jump left between malloc and free are leaks too, as many
			# as it lists.
			MTRACE_OUT=$(run_mtrace "$BUILD/sigjump" log) || { fail "$u run $i: mtrace failed"; return 1; }
			leaks_listed log "$(leaks_but_100 "$MTRACE_OUT")54321" || { fail "$u run $i"; return 1; }
		done
	done
}

# leaks_but_100 OUT: "100 100 ... " (each followed by a space) for the
# malloc(100) blocks a jump left unfreed (a jump between a malloc and its
# free), as mtrace's output OUT lists them.
leaks_but_100() {
	local line re="$LEAK_ROW" s=
	while IFS= read -r line; do
		[[ $line =~ $re ]] && [ "${BASH_REMATCH[1]}" = 0x64 ] && s+="100 "
	done <<<"$1"
	echo "$s"
}

# A handler that allocates, 1000 times a second, beside a thread that
# allocates: its 20 kept blocks are the only leaks, the log is consistent.
t_signal_alloc() {
	need_libmtrace || return
	traced log "$BUILD/sigstorm" alloc 20000 >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	grep -q 'kept 20$' out || { fail "$(cat out)"; return 1; }
	expect_leaks "$BUILD/sigstorm" log "$(printf '77 %.0s' $(seq 20) | sed 's/ $//')"
}

# SIGPROF at 10 kHz of CPU time beside eight allocating threads, under
# every unwinder: no deadlock, no crash, no leak, a consistent log.
t_signal_prof() {
	need_libmtrace || return
	local u
	for u in fast libunwind glibc fp; do
		rm -f log
		traced log MEMLEAK_CONFIG=unwind=$u "$BUILD/sigstorm" prof 20000 >out 2>err ||
			{ fail "$u: exit status $?: $(cat err)"; return 1; }
		grep -qE '^ticks [1-9]' out || { fail "$u: no SIGPROF ticks: $(cat out)"; return 1; }
		# Only the TLS blocks of finished threads that glibc keeps in
		# its stack cache for the next thread (as untraced).
		expect_leaks "$BUILD/sigstorm" log "$(tls_cache_leaks log)" || { fail "$u"; return 1; }
	done
}

# tls_cache_leaks LOG: the sizes of the leaks mtrace attributes to glibc's
# dl-tls.c, as expect_leaks wants them.
tls_cache_leaks() {
	local addr size rest
	run_mtrace "$BUILD/sigstorm" "$1" | grep -E "$LEAK_ROW" | grep 'dl-tls\.c' |
		while read -r addr size rest; do echo $((size)); done | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# The program sees its own dispositions, and its handlers run as they
# would untraced (SA_SIGINFO, SA_RESETHAND, signal()'s return values).
t_signal_view() {
	need_libmtrace || return
	limited "$BUILD/sigview" >native 2>&1 || { fail "untraced run failed: $(cat native)"; return 1; }
	traced log "$BUILD/sigview" >out 2>&1 || { fail "traced run failed: $(cat out)"; return 1; }
	diff native out >diff.txt || { fail "traced output differs from untraced:"; cat diff.txt; return 1; }
	expect_leaks "$BUILD/sigview" log ""
}

# die_case HOW SIGNAL: the traced program dies of SIGNAL as untraced does,
# and its log holds every event and ends with "#e signal sig=SIGNAL".
die_case() {
	local how=$1 sig=$2 st native_st n glibc_n
	(ulimit -c 0; limited "$BUILD/die" "$how" >/dev/null 2>&1)
	native_st=$?
	(ulimit -c 0; traced log "$BUILD/die" "$how" >out 2>err)
	st=$?
	[ $st -eq $native_st ] && [ $st -eq $((128 + sig)) ] ||
		{ fail "exit status $st traced, $native_st untraced, expected $((128 + sig))"; return 1; }
	n=$(grep -cE '(^| )[-+] 0x' log)
	[ "$n" -eq 3001 ] || { fail "$n of 3001 event lines in the log"; return 1; }
	grep -qx "#e signal sig=$sig" log || { fail "no '#e signal sig=$sig': $(grep '^#e' log)"; return 1; }
	(ulimit -c 0; glibc_traced glibc.log "$BUILD/die" "$how" >/dev/null 2>&1)
	glibc_n=$(grep -cE '(^| )[-+] 0x' glibc.log)
	note "$how: $n event lines kept, glibc's tracer $glibc_n"
	[ "$n" -ge "$glibc_n" ] || { fail "fewer lines than glibc's tracer ($glibc_n)"; return 1; }
	check_grammar log
}

t_die_abort() { need_libmtrace || return; die_case abort 6; }
t_die_segv() { need_libmtrace || return; die_case segv 11; }
t_die_term() { need_libmtrace || return; die_case term 15; }

# restart_case CALL: libmtrace's signals never end a blocking call early
# (libmtrace/interpose/restart.c, issue 26).  A worker blocks in CALL while main
# takes reports with mtrace() (each stops the worker with SIGURG): the
# call ends as untraced (a timeout returns 0, sleep 0, sigtimedwait
# EAGAIN; pause only on the program's signal); then the program's own
# SIGUSR1 ends the same call with EINTR, its handler run, the time left
# said (progs/restart.c).  Reports are written; the log is consistent.
restart_case() {
	need_libmtrace || return
	local st
	traced log MEMLEAK_CONFIG=report=rep.%n "$BUILD/restart" "$1" >out 2>err
	st=$?
	[ $st -eq 0 ] && [ "$(tail -n1 out)" = ok ] ||
		{ fail "exit status $st: $(cat out err)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	local n=0 f
	for f in rep.*; do
		[ -e "$f" ] || continue
		[ "$(tail -n1 "$f")" = end ] || { fail "$f is not whole"; return 1; }
		n=$((n + 1))
	done
	# 1 start, 3 (+1 in phase 2) reports, muntrace's
	[ $n -ge 4 ] || { fail "$n reports written"; return 1; }
	expect_leaks "$BUILD/restart" log ""
}

t_restart_sleep() { restart_case sleep; }
t_restart_usleep() { restart_case usleep; }
t_restart_nanosleep() { restart_case nanosleep; }
t_restart_clock_nanosleep() { restart_case clock_nanosleep; }
t_restart_thrd_sleep() { restart_case thrd_sleep; }
t_restart_pause() { restart_case pause; }
t_restart_sigsuspend() { restart_case sigsuspend; }
t_restart_poll() { restart_case poll; }
t_restart_poll_chk() { restart_case poll_chk; }
t_restart_ppoll() { restart_case ppoll; }
t_restart_select() { restart_case select; }
t_restart_pselect() { restart_case pselect; }
t_restart_epoll_wait() { restart_case epoll_wait; }
t_restart_epoll_pwait() { restart_case epoll_pwait; }
t_restart_sigtimedwait() { restart_case sigtimedwait; }
t_restart_sigwaitinfo() { restart_case sigwaitinfo; }
t_restart_sem_timedwait() { restart_case sem_timedwait; }

# whole_or_gone FILE PID: FILE is a whole report, or PID has exited.
whole_or_gone() {
	{ [ -s "$1" ] && [ "$(tail -n1 "$1")" = end ]; } || ! kill -0 "$2" 2>/dev/null
}


# The report signal (signal=USR2) neither ends a program's pause() nor
# exits it: two reports are written while it waits, then its own SIGUSR1
# ends the wait with EINTR, its handler run (issue 26).
t_restart_report_signal() {
	need_libmtrace || return
	traced log MEMLEAK_CONFIG=mtraceinit,signal=USR2,report=rep.%n \
		"$BUILD/reportsig" pause >out 2>err &
	local pid=$! st i
	wait_for grep -q '^ready ' out || { fail "never ready: $(cat out err)"; return 1; }
	local prog
	prog=$(awk '$1 == "ready" { print $2 }' out)
	for i in 1 2; do
		wait_for main_sleeps "$prog" || { fail "never blocked"; return 1; }
		kill -USR2 "$prog"
		wait_for whole_or_gone rep.$i "$prog" || { fail "report $i never written"; return 1; }
		! grep -q 'pause returned' out ||
			{ wait $pid; fail "pause() returned after report signal $i: $(cat out err)"; return 1; }
		kill -0 "$prog" 2>/dev/null ||
			{ wait $pid; fail "the program ended after report signal $i: $(cat out err)"; return 1; }
	done
	wait_for main_sleeps "$prog"
	kill -USR1 "$prog"
	wait $pid
	st=$?
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	grep -qx 'pause returned -1, errno EINTR, handler ran 1 times' out ||
		{ fail "output: $(cat out)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	for i in 1 2; do
		[ "$(awk '$1 == "trigger" { print $2 }' rep.$i)" = signal ] || { fail "rep.$i: not the signal's"; return 1; }
	done
	[ "$(awk '$1 == "trigger" { print $2 }' rep.3)" = exit ] && [ "$(tail -n1 rep.3)" = end ] ||
		{ fail "no whole exit report"; return 1; }
	expect_leaks "$BUILD/reportsig" log "4242"
}

# Reports asked for by the signal are written before the program exits,
# even when it exits at once and libmtrace's reporter thread cannot run
# before (progs/reportsig.c exit: pinned beside it, SCHED_IDLE).
t_report_signal_exit() {
	need_libmtrace || return
	local i
	traced log MEMLEAK_CONFIG=mtraceinit,signal=USR2,report=rep.%n \
		"$BUILD/reportsig" exit >out 2>err || { fail "exit status $?: $(cat out err)"; return 1; }
	[ ! -s out ] && [ ! -s err ] || { fail "output: $(cat out err)"; return 1; }
	for i in 1 2 3; do
		[ -s rep.$i ] && [ "$(tail -n1 rep.$i)" = end ] || { fail "rep.$i missing or not whole: $(ls rep.*)"; return 1; }
	done
	[ "$(awk '$1 == "trigger" { print $2 }' rep.1)" = signal ] &&
		[ "$(awk '$1 == "trigger" { print $2 }' rep.2)" = signal ] &&
		[ "$(awk '$1 == "trigger" { print $2 }' rep.3)" = exit ] ||
		{ fail "triggers: $(grep -h '^trigger' rep.*)"; return 1; }
	[ ! -e rep.4 ] || { fail "a report too many"; return 1; }
	expect_leaks "$BUILD/reportsig" log "4242"
}
