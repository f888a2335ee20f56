# SPDX-License-Identifier: GPL-3.0-or-later
# tests-io.sh - where the log goes and what happens when writing it fails:
# /dev/stdout, /dev/full, file size limits, FIFOs, signals, reused fds.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

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
	local st native_st
	"$BUILD/writefail" >native.out
	native_st=$?
	mkfifo fifo
	# The reader opens the FIFO read-write (which never blocks) before the
	# program starts, so opening the log finds a reader; it quits after
	# 1000 bytes, and with it the FIFO's last reader.
	timeout "$RUN_TIMEOUT" bash -c 'exec 3<>fifo; : >ready; exec head -c 1000 <&3 >/dev/null 3<&-' &
	wait_for test -e ready || { fail "the reader never opened the FIFO"; return 1; }
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
	# The test holds the FIFO open (read and write) from before the program
	# starts, so opening the log finds a reader whenever READER opens it;
	# READER sees the end once the program and the test have closed it.
	exec 8<>fifo
	timeout "$RUN_TIMEOUT" bash -c "$2" >got.log 8>&- &
	traced fifo "$BUILD/writefail" "$1" >out 2>err
	st=$?
	exec 8>&-
	wait
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(head -c 500 err)"; return 1; }
	expect_leaks "$BUILD/writefail" got.log "17 34"
}

# Writes into a pipe that is full for the first 0.5 s: EINTR, partial writes.
t_eintr() {
	eintr_case signals 'sleep 0.5; exec cat fifo'
}

# Signals from the very start, while the log (a FIFO whose reader is
# there already) is opened and first written.  Opening never blocks any
# more (a FIFO without a reader: fifo-no-reader), so the test holds the
# FIFO open, read and write, before the program starts.
t_eintr_open() {
	local st native_st
	"$BUILD/writefail" early-signals >native.out
	native_st=$?
	mkfifo fifo
	exec 8<>fifo                  # a reader (and writer) from the start
	timeout 120 cat fifo >got.log 8>&- & # EOF once the test closes fd 8
	traced fifo "$BUILD/writefail" early-signals >out 2>err
	st=$?
	exec 8>&-
	wait
	[ $st -eq $native_st ] || { fail "exit status $st, natively $native_st"; return 1; }
	cmp -s out native.out || { fail "stdout differs: $(cat out)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(head -c 500 err)"; return 1; }
	expect_leaks "$BUILD/writefail" got.log "17 34"
}

# MALLOC_TRACE names a FIFO nobody reads: opening it must not block the
# program; one line says why there is no log, and the program runs as
# untraced (issue 12).
t_fifo_no_reader() {
	need_libmtrace || return
	mkfifo log
	traced log MEMLEAK_CONFIG=mtraceinit "$BUILD/leak_static" >out 2>err
	local st=$?
	[ $st -ne 124 ] || { fail "the program blocked opening the FIFO"; return 1; }
	[ $st -eq 0 ] || { fail "exit status $st: $(cat err)"; return 1; }
	[ "$(grep -c '^libmtrace: cannot open the trace log .*a FIFO without a reader' err)" -eq 1 ] ||
		{ fail "stderr: $(cat err)"; return 1; }
	"$BUILD/leak_static" >native.out 2>&1
	cmp -s native.out out || { fail "output differs from untraced"; return 1; }
}
