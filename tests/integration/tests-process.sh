# SPDX-License-Identifier: GPL-3.0-or-later
# tests-process.sh - process life: log naming, fork, exec, setuid.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

# Two traced processes at once with the same MALLOC_TRACE: the first (a
# "cat" traced from load, reading a FIFO until the test closes it) holds
# LOG; the second must not truncate it and writes LOG.<pid>.  A later run
# reuses LOG, which no live process holds.
t_concurrent() {
	need_libmtrace || return
	local other
	mkfifo hold
	exec 7<>hold # read-write: never blocks; cat sees EOF when it is closed
	traced log MEMLEAK_CONFIG=mtraceinit cat hold >/dev/null 7>&- &
	if ! wait_for flocked log; then
		exec 7>&-
		wait
		fail "the first process never locked LOG"
		return 1
	fi
	traced log "$BUILD/threads" >out 2>&1
	local st=$?
	exec 7>&-
	wait
	[ $st -eq 0 ] || { fail "threads run: $(cat out)"; return 1; }
	[[ "$(log_program log)" == */cat ]] || { fail "LOG is not cat's: $(log_program log)"; return 1; }
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
	[ "$(log_field "log.$pid" pid)" = "$pid" ] || { fail "#v pid is not $pid"; return 1; }
	expect_leaks "$BUILD/exec_child" "log.$pid" "321 654"
}

t_fork_classic() {
	need_libmtrace || return
	local child
	traced log MEMLEAK_CONFIG=classic "$BUILD/fork" _exit >out 2>err || { fail "exit status $?"; return 1; }
	child=$(awk '$1 == "child" { print $2 }' out)
	MODE=classic expect_leaks "$BUILD/fork" log "111 444" || { fail "(parent log)"; return 1; }
	MODE=classic expect_leaks "$BUILD/fork" "log.$child" "333" || { fail "(child log)"; return 1; }
	! grep -q '^#' log "log.$child" || { fail "'#' records in a classic log"; return 1; }
}

# daemon(): the parent leaves through libc's internal _exit() right after
# the fork, so its log must be complete at the fork already; the child's
# header names the parent even though the parent is gone (getppid() is 1).
t_daemon() {
	need_libmtrace || return
	local parent child
	# Not "traced": its process-group kill could hit the child before setsid().
	timeout "$RUN_TIMEOUT" env MALLOC_TRACE=log LD_PRELOAD="$LIB" "$BUILD/daemonize" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	wait_for test -e daemon.done || { fail "the daemon did not finish: $(cat out)"; return 1; }
	parent=$(awk '$1 == "parent" { print $2 }' out)
	child=$(awk '$1 == "child" { print $2 }' out)
	expect_leaks "$BUILD/daemonize" log 11 || { fail "(parent log)"; return 1; }
	expect_leaks "$BUILD/daemonize" "log.$child" 22 || { fail "(child log)"; return 1; }
	[ "$(log_field "log.$child" forked-from)" = "$parent" ] ||
		{ fail "child header: $(sed -n 2p "log.$child"), parent pid $parent"; return 1; }
}

# fork_case PROGRAM exit|_exit: the child writes its own log, of what it
# allocated itself: the 222-byte block it inherited and never freed is the
# parent's (the parent frees it), and its free of the inherited 111-byte
# block is no error.
fork_case() {
	local prog=$1 ppid child addr
	traced log "$BUILD/$prog" "$2" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	child=$(awk '$1 == "child" { print $2 }' out)
	[ -n "$child" ] || { fail "no child pid printed"; return 1; }
	expect_leaks "$BUILD/$prog" log "111 444" || { fail "(parent log)"; return 1; }
	[ -f "log.$child" ] || { fail "no child log log.$child; files: $(ls)"; return 1; }
	expect_leaks "$BUILD/$prog" "log.$child" "333" || { fail "(child log)"; return 1; }
	[ "$(trace_logs log | wc -l)" -eq 2 ] || { fail "unexpected logs: $(trace_logs log)"; return 1; }
	ppid=$(log_field log pid)
	[ -n "$ppid" ] && [ "$(log_field "log.$child" forked-from)" = "$ppid" ] ||
		{ fail "child header: $(sed -n 2p "log.$child"), parent pid $ppid"; return 1; }
	[ "$(log_field "log.$child" pid)" = "$child" ] || { fail "child #v pid is not $child"; return 1; }
	[ "$(log_field "log.$child" ppid)" = "$ppid" ] || { fail "child #v ppid is not $ppid"; return 1; }
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

# Fork while another thread hammers malloc: no deadlock, every child log
# clean.  Each fork lands in a burst of the hammer's (fork_threads.c), so
# 20 forks a configuration cover what 50 unsynchronized ones did.
t_fork_threads() {
	local n=20 logs st u
	for u in "" unwind=libunwind unwind=glibc unwind=fp classic; do
		[ "$MODE" = libmtrace ] || [ -z "$u" ] || continue
		rm -f log log.*
		traced log ${u:+MEMLEAK_CONFIG=$u} "$BUILD/fork_threads" $n >out 2>err
		st=$?
		[ $st -ne 124 ] || { fail "${u:-default}: timed out after ${RUN_TIMEOUT}s (deadlock?): $(cat out)"; return 1; }
		[ $st -eq 0 ] || { fail "${u:-default}: exit status $st: $(cat out err)"; return 1; }
		if [ "$u" = classic ]; then
			MODE=classic expect_leaks "$BUILD/fork_threads" log "" || { fail "$u"; return 1; }
			continue
		fi
		expect_leaks "$BUILD/fork_threads" log "" || { fail "${u:-default}"; return 1; }
		[ "$MODE" = libmtrace ] || continue
		logs=$(trace_logs log | grep -vc '^log$')
		[ "$logs" -eq $n ] || { fail "${u:-default}: $logs child logs, expected $n"; return 1; }
		check_children log || { fail "${u:-default}"; return 1; }
	done
}

# Fork while another thread is inside dlopen()/dlclose() (which holds the
# loader's locks a child's unwinder needs; glibc allocates inside dlopen
# with the loader's write lock held): no deadlock under any unwinder, every
# child log clean.  A hang is reported with every thread's stack.
t_fork_dlopen() {
	local n=50 st u
	for u in "" unwind=libunwind unwind=glibc unwind=fp; do
		[ "$MODE" = libmtrace ] || [ -z "$u" ] || continue
		rm -f log log.*
		limited_or_report env MALLOC_TRACE=log LD_PRELOAD="$LIB" ${u:+MEMLEAK_CONFIG=$u} \
			"$BUILD/fork_dlopen" "$BUILD/plugin.so" $n >out 2>err
		st=$?
		[ $st -ne 124 ] || { fail "${u:-default}: hung (no end after ${RUN_TIMEOUT}s): $(cat out)"; return 1; }
		[ $st -eq 0 ] || { fail "${u:-default}: exit status $st: $(cat out err)"; return 1; }
		expect_leaks "$BUILD/fork_dlopen" log "" || { fail "${u:-default}"; return 1; }
		[ "$MODE" = libmtrace ] || continue
		check_children log || { fail "${u:-default}"; return 1; }
	done
}

# The deterministic form: the other thread sits in dl_iterate_phdr (the
# loader's write lock held) at every fork, so every child inherits it held;
# a child that took it would hang (it did, under libunwind, before the
# child kept off dl_iterate_phdr).
t_fork_dlopen_held() {
	local st u
	for u in "" unwind=libunwind unwind=glibc unwind=fp; do
		[ "$MODE" = libmtrace ] || [ -z "$u" ] || continue
		rm -f log log.*
		limited_or_report env MALLOC_TRACE=log LD_PRELOAD="$LIB" ${u:+MEMLEAK_CONFIG=$u} \
			"$BUILD/fork_dlopen" "$BUILD/plugin.so" 5 held >out 2>err
		st=$?
		[ $st -ne 124 ] || { fail "${u:-default}: hung (no end after ${RUN_TIMEOUT}s): $(cat out)"; return 1; }
		[ $st -eq 0 ] || { fail "${u:-default}: exit status $st: $(cat out err)"; return 1; }
		[ "$MODE" = libmtrace ] || continue
		check_children log || { fail "${u:-default}"; return 1; }
	done
}

# check_children LOG: in every LOG.* no bogus lines, the child's own
# blocks freed, the grammar kept.
check_children() {
	local f out logs=()
	for f in "$1".*; do
		[ -e "$f" ] && [[ $f != *.memlog ]] || continue
		out=$(run_mtrace "" "$f")
		! has_bogus "$out" || { fail "$f:"; grep -m3 -E "duplicate|never" <<<"$out"; return 1; }
		[[ ! $out =~ \ 0x(1092|1f40)\ \ at\  ]] || { fail "$f: child's own block leaked"; return 1; }
		logs+=("$f")
	done
	check_grammar "${logs[@]}"
}

# exec_case fork|system: a traced child inheriting the environment writes
# its own log and leaves the parent's intact.  EXEC_CONFIG: more options
# (tests-livelog.sh).
exec_case() {
	local child_pid f child_logs=()
	traced log MEMLEAK_CONFIG=mtraceinit${EXEC_CONFIG:+,$EXEC_CONFIG} "$BUILD/exec_parent" "$1" "$BUILD/exec_child" >out 2>err ||
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

# exec() while another thread allocates (10 runs): no hang; both logs
# consistent, and whole: the other thread's write(2) cut at a page boundary
# by the exec that kills it tore the parent log's last line (18 runs in
# 1000 beside two busy loops, before tracelog.c's exec gate).
t_exec_threads() {
	need_libmtrace || return
	local pid st i
	for i in $(seq 10); do
		rm -f log log.*
		traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" threads-exec "$BUILD/exec_child" >out 2>err
		st=$?
		[ $st -eq 7 ] || { fail "run $i: exit status $st, not the child's 7: $(cat out err)"; return 1; }
		pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
		[ -f "log.$pid" ] || { fail "run $i: no log.$pid; files: $(ls)"; return 1; }
		[ -z "$(tail -c1 log)" ] || { fail "run $i: the log ends inside a line: $(tail -c 80 log)"; return 1; }
		expect_leaks "$BUILD/exec_child" "log.$pid" "321 654" || { fail "run $i"; return 1; }
		check_all_logs log || { fail "run $i"; return 1; }
	done
}

# The parent keeps allocating while its exec'd child (the 4-thread program)
# writes its own log: both complete.
t_exec_busy() {
	need_libmtrace || return
	local f child=""
	traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" fork-busy "$BUILD/threads" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	grep -q '^child status 0$' out || { fail "child failed: $(cat out)"; return 1; }
	expect_leaks "$BUILD/exec_parent" log "123 124" || { fail "(parent log)"; return 1; }
	for f in $(trace_logs log); do
		[[ "$(log_program "$f")" != */threads ]] || child=$f
	done
	[ -n "$child" ] || { fail "no log of the exec'd program: $(trace_logs log | tr '\n' ' ')"; return 1; }
	expect_leaks "$BUILD/threads" "$child" "1000 1001 1002 1003"
}

# fork() + execl() twice: the parent's 111-byte leak is reported once, in
# the parent's log; each exec'd child's log has its own leaks; the fork
# children that only exec'd wrote no log at all; glibc's checker and ours
# find no bogus line in any file.
t_fork_exec_twice() {
	need_libmtrace || return
	local f n=0 kids=()
	traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/fork_exec" "$BUILD/exec_child" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	[ "$(grep -c 'status 7$' out)" -eq 2 ] || { fail "children: $(cat out)"; return 1; }
	expect_leaks "$BUILD/fork_exec" log "111" || { fail "(parent log)"; return 1; }
	for f in $(trace_logs log); do
		[ "$f" = log ] && continue
		n=$((n + 1))
		[[ "$(log_program "$f")" == */exec_child ]] || { fail "$f is not exec_child's: $(log_program "$f")"; return 1; }
		expect_leaks "$BUILD/exec_child" "$f" "321 654" || return 1
		kids+=("$f")
	done
	[ $n -eq 2 ] || { fail "$n child logs, expected 2: $(trace_logs log | tr '\n' ' ')"; return 1; }
	check_all_logs log "${kids[@]}" || return 1
	check_checker_logs log "${kids[@]}"
}

# "timeout 30 PROG" under mtraceinit: timeout's fork child only execs, so
# it leaves no log and timeout's blocks are never reported as its leaks.
t_fork_exec_timeout() {
	need_libmtrace || return
	local f logs
	traced log MEMLEAK_CONFIG=mtraceinit timeout 30 "$BUILD/exec_child" >out 2>err
	[ $? -eq 7 ] || { fail "exit status is not the child's 7: $(cat out err)"; return 1; }
	logs=$(trace_logs log)
	[ "$(wc -l <<<"$logs")" -eq 2 ] || { fail "logs: $(tr '\n' ' ' <<<"$logs")"; return 1; }
	for f in $logs; do
		case $(log_program "$f") in
		*/timeout) [ "$f" = log ] || { fail "timeout's log is $f"; return 1; } ;;
		*/exec_child) expect_leaks "$BUILD/exec_child" "$f" "321 654" || return 1 ;;
		*) fail "$f: a log of $(log_program "$f")"; return 1 ;;
		esac
	done
	check_all_logs log
}

# A failed exec changes nothing: the program goes on, its log intact.
t_exec_fails() {
	need_libmtrace || return
	exec_case badexec
}

t_exec_fork() { need_libmtrace || return; exec_case fork; }
t_exec_vfork() { need_libmtrace || return; exec_case vfork; }
t_exec_fork_closefds() { need_libmtrace || return; exec_case fork-closefds; }
t_exec_vfork_closefds() { need_libmtrace || return; exec_case vfork-closefds; }
t_exec_system() { need_libmtrace || return; exec_case system; }

# A setuid program (run by root, owned by nobody: AT_SECURE) ignores
# MALLOC_TRACE.  LD_PRELOAD with a slash is ignored in secure mode, so the
# binary links libmtrace.so directly (rpath) to be sure it is loaded.
# The program runs as 'nobody', so the library and the log's directory must
# be reachable by nobody (were they not, "no log written" would prove
# nothing): the case runs in a directory of its own under /tmp, whatever
# TMPDIR is (make check-stress makes it a private, 0700 one).
t_setuid() {
	need_libmtrace || return
	[ "$(id -u)" -eq 0 ] || { skip "not root: cannot make a setuid binary"; return; }
	id nobody >/dev/null 2>&1 || { skip "no user 'nobody'"; return; }
	local d rc
	d=$(mktemp -d /tmp/mtrace-setuid.XXXXXX) || { fail "cannot make a directory in /tmp"; return 1; }
	chmod 1777 "$d"
	(cd "$d" && T=$d setuid_case)
	rc=$?
	if [ $rc -eq 1 ]; then echo "setuid files kept in $d"; else rm -rf "$d"; fi
	return $rc
}

setuid_case() {
	cp "$LIB" "$T/libmtrace.so" && chmod 755 "$T/libmtrace.so"
	gcc -O2 -o suid "$HERE/progs/leak_static.c" -L"$T" -lmtrace -Wl,-rpath,"$T" ||
		{ fail "cannot build the setuid test binary"; return 1; }
	MALLOC_TRACE=$T/plain.log ./suid || { fail "plain run failed"; return 1; }
	[ -s plain.log ] || { skip "control run wrote no log: libmtrace.so not used by the linked binary"; return; }
	chown nobody suid && chmod 4755 suid || { skip "cannot chown/chmod"; return; }
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

# A wrapper (timeout, a shell script) traced from its start takes the
# plain log name, the program writes LOG.PID: mtrace-check BINARY LOG
# checks the program's log, and says so.
t_wrapper_logs() {
	need_libmtrace || return
	local w st
	printf '#!/bin/sh\n"$@"\n' >wrap.sh
	chmod +x wrap.sh
	for w in "timeout 60" ./wrap.sh; do
		rm -f trace.log* ./*.memlog
		limited env MEMLEAK_CONFIG=mtraceinit MALLOC_TRACE="$T/trace.log" LD_PRELOAD="$LIB" \
			$w "$BUILD/verdicts" global >out 2>err || { fail "$w: status $?: $(cat err)"; return 1; }
		"$MTRACE_CHECK" "$BUILD/verdicts" trace.log >report 2>err
		st=$?
		[ $st -eq 1 ] || { fail "$w: status $st"; cat report err; return 1; }
		grep -q '^1,003 bytes in 1 blocks are definitely lost' report ||
			{ fail "$w: the program's leak is not reported"; cat report err; return 1; }
		grep -q "the log of .*, not of $BUILD/verdicts: checking trace.log.[0-9]* instead" err ||
			{ fail "$w: not said: $(cat err)"; return 1; }
	done
}
