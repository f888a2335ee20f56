# SPDX-License-Identifier: GPL-3.0-or-later
# tests-compress.sh - compressed logs (MALLOC_TRACE=NAME.zst, libmtrace's
# zstdlog.c): whatever way the program ends, the file is whole zstd frames
# (zstd -t) whose content is the log an uncompressed run writes: glibc's
# mtrace and the grammar check pass on it, and its events are the same.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

ZBUSY_PAIRS=${ZBUSY_PAIRS:-60000} # ~3.6 MB of log a thread: the thread works

need_zstd() {
	need_libmtrace || return
	command -v zstd >/dev/null || skip "zstd is not installed (Debian package zstd)"
}

# unzst LOG.zst: the frames are whole (zstd -t) and LOG.zst's content goes
# to LOG.zst.txt.
unzst() {
	zstd -q -t "$1" 2>zstd.err || { fail "$1: not whole zstd frames: $(cat zstd.err)"; return 1; }
	zstd -q -d -c "$1" >"$1.txt" || { fail "$1: zstd -d failed"; return 1; }
}

# log_events LOG: the events of LOG without what changes from run to run
# (addresses, ids, pids, times): "OP [SIZE] MODULE:OFFSET...", in order.
log_events() {
	awk '$1 == "#m" { p = $0; sub(/^#m [^ ]+ [^ ]+ [^ ]+ /, "", p); mod[$2] = p; next }
	$1 == "#s" {
		f = ""
		for (i = 3; i <= NF; i++) { split($i, a, ":"); f = f " " ((a[1] in mod) ? mod[a[1]] : a[1]) ":" a[2] }
		st["s" $2] = f
		next
	}
	/^[#=]/ { next }
	{
		i = ($1 == "@") ? 3 : 1
		line = $i
		if ($i == "+" || $i == ">" || $i == "!") { line = line " " $(i + 2); s = $(i + 3) } else s = $(i + 2)
		print line ((s in st) ? st[s] : " unknown-" s)
	}' "$1"
}

# same_events PLAIN DECOMPRESSED [sorted]: the two runs logged the same
# events (in the same order, or as the same multiset with threads).
same_events() {
	local a=$1 b=$2
	if [ "${3:-}" = sorted ]; then
		log_events "$a" | sort >events.plain
		log_events "$b" | sort >events.zst
	else
		log_events "$a" >events.plain
		log_events "$b" >events.zst
	fi
	[ -s events.plain ] || { fail "no events in $a"; return 1; }
	cmp -s events.plain events.zst ||
		{ fail "$b: events differ from the uncompressed run's ($(wc -l <events.plain) vs $(wc -l <events.zst) lines):"; diff events.plain events.zst | head -5; return 1; }
}

# last_end LOG: the last "#e" record.
last_end() { grep '^#e ' "$1" | tail -n1; }

# zbusy_leaks THREADS [MORE]: the leak sizes zbusy leaves, as expect_leaks
# wants them.
zbusy_leaks() {
	local i sizes=(1111)
	for ((i = 0; i < $1; i++)); do sizes+=($((2000 + i))); done
	[ -z "${2:-}" ] || sizes+=($2)
	printf '%s\n' "${sizes[@]}" | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# Two threads and main fill ~10 MB of log: the compressor thread exists,
# the file is whole frames that decompress to the log a plain run writes,
# glibc's mtrace reads it through a pipe, mtrace-check reads it too.
t_zstd_threads() {
	need_zstd || return
	traced log "$BUILD/zbusy" return 2 "$ZBUSY_PAIRS" >out.plain 2>err || { fail "plain run: $(cat err)"; return 1; }
	traced log.zst "$BUILD/zbusy" return 2 "$ZBUSY_PAIRS" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	grep -qx 'compressor yes' out || { fail "no mtrace-zstd thread: $(cat out)"; return 1; }
	unzst log.zst || return 1
	note "$(stat -c %s log) bytes plain, $(stat -c %s log.zst) compressed"
	[ "$(stat -c %s log.zst)" -lt $(($(stat -c %s log) / 4)) ] || { fail "log.zst is not 4 times smaller than log"; return 1; }
	[ "$(last_end log.zst.txt)" = "#e exit" ] || { fail "last #e: $(last_end log.zst.txt)"; return 1; }
	expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 2)" || return 1
	same_events log log.zst.txt sorted || return 1
	# The pipe the docs give for glibc's checker.
	zstdcat log.zst | "$MTRACE_PL" "$BUILD/zbusy" - >piped 2>&1
	run_mtrace "$BUILD/zbusy" log.zst.txt >direct
	cmp -s piped direct || { fail "zstdcat | mtrace differs from mtrace on the file"; diff piped direct | head; return 1; }
	# mtrace-check reads the compressed file as it is.
	check_checker_logs log.zst || return 1
	"$MTRACE_CHECK" "$BUILD/zbusy" log.zst >chk.zst 2>&1
	"$MTRACE_CHECK" "$BUILD/zbusy" log.zst.txt >chk.txt 2>&1
	cmp -s chk.zst chk.txt || { fail "mtrace-check: log.zst and its text differ"; diff chk.zst chk.txt | head; return 1; }
}

# One thread, every way to end: whole frames each time, the right "#e",
# the same events in the same order as the uncompressed run.
t_zstd_exit_paths() {
	need_zstd || return
	local m want
	for m in return exit _exit _Exit quick_exit muntrace; do
		rm -f log log.zst*
		traced log "$BUILD/zbusy" $m 0 "$ZBUSY_PAIRS" >out 2>err || { fail "$m plain: $(cat err)"; return 1; }
		traced log.zst "$BUILD/zbusy" $m 0 "$ZBUSY_PAIRS" >out 2>err || { fail "$m: exit status $?: $(cat err)"; return 1; }
		grep -qx 'compressor yes' out || { fail "$m: no mtrace-zstd thread: $(cat out)"; return 1; }
		unzst log.zst || { fail "$m"; return 1; }
		want="#e exit"
		[ $m != muntrace ] || want="#e muntrace"
		[ "$(last_end log.zst.txt)" = "$want" ] || { fail "$m: last #e is '$(last_end log.zst.txt)'"; return 1; }
		[ $m != muntrace ] || [ "$(tail -n1 log.zst.txt)" = "= End" ] || { fail "$m: no '= End' at the end"; return 1; }
		expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 0)" || { fail "$m"; return 1; }
		same_events log log.zst.txt || { fail "$m"; return 1; }
	done
	# Frees by destructors after libmtrace's exit handler: a frame each.
	traced log.zst "$BUILD/exit_frees" >out 2>err || { fail "exit_frees: $(cat err)"; return 1; }
	unzst log.zst || { fail "exit_frees"; return 1; }
	expect_leaks "$BUILD/exit_frees" log.zst.txt 555 || { fail "exit_frees"; return 1; }
	[ "$(grep -A1000000 '^#e exit' log.zst.txt | grep -c '^- ')" -gt 100 ] ||
		{ fail "exit_frees: no frees after '#e exit'"; return 1; }
}

# Fatal signals: the process dies of its signal, the log ends with
# "#e signal sig=N" in whole frames.  SIGKILL: nothing can end the frame;
# what zstdcat gets is the log's beginning, which mtrace reads as usual.
t_zstd_signals() {
	need_zstd || return
	local how sig st n
	for how in abort:6 segv:11 term:15; do
		sig=${how#*:}
		how=${how%:*}
		rm -f log.zst*
		(ulimit -c 0; traced log.zst "$BUILD/zbusy" $how 0 "$ZBUSY_PAIRS" >out 2>err)
		st=$?
		[ $st -eq $((128 + sig)) ] || { fail "$how: exit status $st, expected $((128 + sig)): $(cat err)"; return 1; }
		unzst log.zst || { fail "$how"; return 1; }
		[ "$(last_end log.zst.txt)" = "#e signal sig=$sig" ] || { fail "$how: last #e is '$(last_end log.zst.txt)'"; return 1; }
		expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 0)" || { fail "$how"; return 1; }
	done
	rm -f log.zst*
	traced log.zst "$BUILD/zbusy" kill 1 "$ZBUSY_PAIRS" >out 2>err
	[ $? -eq 137 ] || { fail "kill: exit status $?"; return 1; }
	zstdcat log.zst >log.txt 2>/dev/null
	[ "$(head -n1 log.txt)" = "= Start" ] || { fail "kill: the log does not start with '= Start'"; return 1; }
	! grep -q '^#e ' log.txt || { fail "kill: an #e record in a killed process's log"; return 1; }
	# Lost: at most what the buffers held (two threads' 16 KiB, the log's
	# 64 KiB, 3 x 64 KiB queued): ~20000 lines of 4 x PAIRS.
	n=$(grep -cE '(^| )[-+] 0x' log.txt)
	note "SIGKILL: $n event lines readable of $((4 * ZBUSY_PAIRS))"
	[ "$n" -ge $((4 * ZBUSY_PAIRS - 20000)) ] || { fail "kill: only $n event lines readable"; return 1; }
	run_mtrace "$BUILD/zbusy" log.txt >/dev/null || { fail "kill: mtrace failed on what zstdcat gives"; return 1; }
	"$MTRACE_CHECK" "$BUILD/zbusy" log.zst >chk 2>&1
	grep -q 'cut short' chk || { fail "kill: mtrace-check does not say the log was cut short: $(head -3 chk)"; return 1; }
}

# fork: each process writes its own stream (the child's file is
# log.PID.zst), whole frames each, the same events as uncompressed.
t_zstd_fork() {
	need_zstd || return
	local child ppid
	traced log "$BUILD/zbusy" fork 1 "$ZBUSY_PAIRS" >out 2>err || { fail "plain run: $(cat err)"; return 1; }
	mv "log.$(awk '$1 == "child" { print $2 }' out)" plain.child
	traced log.zst "$BUILD/zbusy" fork 1 "$ZBUSY_PAIRS" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	child=$(awk '$1 == "child" { print $2 }' out)
	[ -f "log.$child.zst" ] || { fail "no log.$child.zst; files: $(ls)"; return 1; }
	unzst log.zst || return 1
	unzst "log.$child.zst" || { fail "(child)"; return 1; }
	expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 1 4444)" || { fail "(parent)"; return 1; }
	expect_leaks "$BUILD/zbusy" "log.$child.zst.txt" 3333 || { fail "(child)"; return 1; }
	ppid=$(log_field log.zst.txt pid)
	[ "$(log_field "log.$child.zst.txt" forked-from)" = "$ppid" ] || { fail "child header: $(sed -n 2p "log.$child.zst.txt")"; return 1; }
	! grep -qE '(^| )\+ 0x[0-9a-f]+ 0xd05( |$)' log.zst.txt || { fail "the child's 3333 block in the parent's log"; return 1; }
	same_events log log.zst.txt sorted || { fail "(parent)"; return 1; }
	same_events plain.child "log.$child.zst.txt" || { fail "(child)"; return 1; }
}

# daemon(): the parent leaves through _exit inside daemon(), its stream
# ended; the daemon writes its own.
t_zstd_daemon() {
	need_zstd || return
	local i child
	timeout "$RUN_TIMEOUT" env MALLOC_TRACE=log.zst LD_PRELOAD="$LIB" "$BUILD/zbusy" daemon 0 "$ZBUSY_PAIRS" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	for i in $(seq 600); do [ -e daemon.done ] && break; sleep 0.1; done
	[ -e daemon.done ] || { fail "the daemon did not finish: $(cat out)"; return 1; }
	sleep 0.2 # daemon.done is made just before its return and exit
	child=$(awk '$1 == "child" { print $2 }' out)
	unzst log.zst || { fail "(parent)"; return 1; }
	[ "$(last_end log.zst.txt)" = "#e exit" ] || { fail "parent: last #e is '$(last_end log.zst.txt)'"; return 1; }
	expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 0)" || { fail "(parent)"; return 1; }
	for i in $(seq 100); do zstd -q -t "log.$child.zst" 2>/dev/null && break; sleep 0.1; done
	unzst "log.$child.zst" || { fail "(daemon)"; return 1; }
	expect_leaks "$BUILD/zbusy" "log.$child.zst.txt" 5555 || { fail "(daemon)"; return 1; }
}

# exec while another thread allocates: "#e exec" in whole frames, nothing
# cut (lines the other thread logged after it are held back, not written
# half: without that, about one run in five left a cut frame); the exec'd
# program (traced through mtraceinit) writes its own compressed log.
t_zstd_exec() {
	need_zstd || return
	local pid i
	for i in 1 2 3; do
		rm -f log.zst* log.*.zst*
		traced log.zst MEMLEAK_CONFIG=mtraceinit "$BUILD/zbusy" exec 2 "$ZBUSY_PAIRS" "$BUILD/exec_child" >out 2>err
		[ $? -eq 7 ] || { fail "run $i: exit status is not the child's 7: $(cat out err)"; return 1; }
		unzst log.zst || { fail "run $i"; return 1; }
		grep -qx '#e exec' log.zst.txt || { fail "run $i: no '#e exec': $(grep '^#e' log.zst.txt)"; return 1; }
		check_all_logs log.zst.txt || { fail "run $i"; return 1; }
		pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
		[ -f "log.$pid.zst" ] || { fail "run $i: no log.$pid.zst (the exec'd image's); files: $(ls)"; return 1; }
		unzst "log.$pid.zst" || { fail "run $i"; return 1; }
		expect_leaks "$BUILD/exec_child" "log.$pid.zst.txt" "321 654" || { fail "run $i"; return 1; }
	done
}

# A failed exec: the image logs on into the same stream.
t_zstd_exec_fails() {
	need_zstd || return
	traced log.zst MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" badexec "$BUILD/exec_child" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	unzst log.zst || return 1
	expect_leaks "$BUILD/exec_parent" log.zst.txt "123 124" || return 1
	[ "$(last_end log.zst.txt)" = "#e exit" ] || { fail "last #e is '$(last_end log.zst.txt)'"; return 1; }
}

# The compressor thread cannot be created (pthread_create fails): one
# line on stderr, the program's thread compresses, the log is whole.
t_zstd_no_thread() {
	need_zstd || return
	local n
	traced log.zst LD_PRELOAD="$BUILD/failthread.so $LIB" "$BUILD/zbusy" return 0 "$ZBUSY_PAIRS" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	grep -qx 'compressor no' out || { fail "$(cat out)"; return 1; }
	n=$(grep -c '^libmtrace: cannot start the thread that compresses the trace log' err)
	[ "$n" -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] || { fail "stderr: $(cat err)"; return 1; }
	unzst log.zst || return 1
	expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 0)"
}

# compress=zstd compresses whatever the name, compress=none writes plain
# text even to a .zst name; a small program's log is whole without a thread.
t_zstd_option() {
	need_zstd || return
	traced log MEMLEAK_CONFIG=compress=zstd "$BUILD/zbusy" return 0 100 >out 2>err || { fail "zstd: $(cat err)"; return 1; }
	grep -qx 'compressor no' out || { fail "a thread for 100 pairs: $(cat out)"; return 1; }
	mv log log.zst && unzst log.zst || { fail "compress=zstd"; return 1; }
	expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 0)" || return 1
	traced plain.zst MEMLEAK_CONFIG=compress=none "$BUILD/zbusy" return 0 100 >out 2>err || { fail "none: $(cat err)"; return 1; }
	[ "$(head -n1 plain.zst)" = "= Start" ] || { fail "compress=none: not plain text"; return 1; }
	expect_leaks "$BUILD/zbusy" plain.zst "$(zbusy_leaks 0)"
}

# The image after an exec() finds its predecessor's compressed log (its
# header is in a skippable frame) and writes LOG.PID.zst beside it.
t_zstd_exec_self() {
	need_zstd || return
	local pid
	traced log.zst MEMLEAK_CONFIG=mtraceinit "$BUILD/exec_parent" exec "$BUILD/exec_child" >out 2>err
	[ $? -eq 7 ] || { fail "exit status is not the child's 7: $(cat out err)"; return 1; }
	pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
	unzst log.zst || return 1
	expect_leaks "$BUILD/exec_parent" log.zst.txt "123" || { fail "(the image before exec)"; return 1; }
	[ -f "log.$pid.zst" ] || { fail "no log.$pid.zst; files: $(ls)"; return 1; }
	unzst "log.$pid.zst" || return 1
	expect_leaks "$BUILD/exec_child" "log.$pid.zst.txt" "321 654"
}

# Classic logs compressed: glibc's lines, byte for byte the plain run's
# but for addresses (the events are the same).
t_zstd_classic() {
	need_zstd || return
	traced log MEMLEAK_CONFIG=classic "$BUILD/zbusy" return 0 "$ZBUSY_PAIRS" >out 2>err || { fail "plain: $(cat err)"; return 1; }
	traced log.zst MEMLEAK_CONFIG=classic "$BUILD/zbusy" return 0 "$ZBUSY_PAIRS" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	unzst log.zst || return 1
	MODE=classic expect_leaks "$BUILD/zbusy" log.zst.txt "$(zbusy_leaks 0)" || return 1
	sed -E 's/0x[0-9a-f]{6,}/ADDR/g' log >plain.norm
	sed -E 's/0x[0-9a-f]{6,}/ADDR/g' log.zst.txt >zst.norm
	cmp -s plain.norm zst.norm || { fail "classic lines differ:"; diff plain.norm zst.norm | head -5; return 1; }
}
