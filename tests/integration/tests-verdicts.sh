# SPDX-License-Identifier: GPL-3.0-or-later
# tests-verdicts.sh - the reachability scan (issue 13): real traced
# programs (progs/verdicts.c, verdicts_cxx.cc) whose blocks each have a
# size of their own; each test names the class every such block must get,
# and every other block of the process (libc's, the loader's) must come out
# still reachable.  The classes are read back with mtrace-check --json from
# the log's "#C"/"#c" records.  Sourced by run-tests.sh.

MTRACE_CHECK=${MTRACE_CHECK:-$HERE/../../mtrace-check/mtrace-check}

# verdicts_of BINARY LOG: "SIZE CLASS" for every block live at the end.
verdicts_of() {
	"$MTRACE_CHECK" --json --fail-on=none "$1" "$2" |
		awk '/^\{"address"/ {
			match($0, /"size":[0-9]+/); s = substr($0, RSTART + 7, RLENGTH - 7)
			c = "none"
			if (match($0, /"class":"[a-z-]+"/)) c = substr($0, RSTART + 9, RLENGTH - 10)
			print s, c }'
}

# expect_verdicts BINARY LOG "SIZE:CLASS ...": each named size is live
# exactly once with that class; every other live block is still reachable.
expect_verdicts() {
	local bin=$1 log=$2 want=$3 got item size cls bad=""
	[ -s "$log" ] || { fail "log $log missing or empty"; return 1; }
	grep -q '^#C scan ' "$log" || { fail "$log: no scan record"; return 1; }
	check_grammar "$log" || return 1
	got=$(verdicts_of "$bin" "$log") || { fail "mtrace-check failed on $log"; return 1; }
	for item in $want; do
		size=${item%%:*} cls=${item#*:}
		[ "$(awk -v s="$size" -v c="$cls" '$1 == s && $2 == c' <<<"$got" | wc -l)" -eq 1 ] ||
			bad="$bad
    block of $size bytes: want $cls, got [$(awk -v s="$size" '$1 == s { printf "%s ", $2 }' <<<"$got")]"
	done
	while read -r size cls; do
		[ -n "$size" ] || continue
		case " $want " in *" $size:"*) continue ;; esac
		[ "$cls" = still-reachable ] || bad="$bad
    unexpected: a block of $size bytes is $cls"
	done <<<"$got"
	[ -z "$bad" ] || { fail "$log: wrong verdicts:$bad$(keepers)"; return 1; }
}

# What kept the possibly lost blocks, as the scan says it on stderr under
# MTRACE_SCAN_DEBUG=p (vrun sets it): where each word pointing into one
# lies (compare with the log's #m lines).
keepers() {
	[ -s err ] && grep -q '^keepers of ' err || return 0
	printf '\n    what pointed into the possibly lost blocks:\n'
	head -40 err | sed 's/^/        /'
}

# expect_child_verdicts BINARY "SIZE:CLASS ...": the same for the log of
# the fork child (log.PID).
expect_child_verdicts() {
	local child
	child=$(ls log.* 2>/dev/null | head -1)
	[ -n "$child" ] || { fail "no child log"; return 1; }
	expect_verdicts "$1" "$child" "$2"
}

vrun() {
	local log=$1
	shift
	traced "$log" MTRACE_SCAN_DEBUG=p "$@" >out 2>err
	local st=$?
	[ $st -eq 0 ] || { fail "exit status $st: $(head -5 err)"; return 1; }
}

t_verdict_global() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" global || return 1
	expect_verdicts "$BUILD/verdicts" log \
		"1001:still-reachable 1002:still-reachable 1003:definitely-lost"
}

t_verdict_main_stack() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" main-stack || return 1
	expect_verdicts "$BUILD/verdicts" log \
		"1151:still-reachable 1152:definitely-lost"
}

# Interior pointers, a block pointing to itself, a leaked cycle (one
# definitely lost, the rest indirectly), a leaked tree.
t_verdict_classes() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" classes || return 1
	expect_verdicts "$BUILD/verdicts" log \
		"1011:possibly-lost 1021:definitely-lost 1031:definitely-lost
		 1032:indirectly-lost 1033:indirectly-lost 1041:definitely-lost
		 1042:indirectly-lost 1043:indirectly-lost 1044:indirectly-lost" || return 1
	# The definitely lost block of the cycle carries its clique's bytes,
	# and mtrace-check says so in valgrind's words.
	grep -Eq "^#c 0x[0-9a-f]+ d $((1032 + 1033))$" log ||
		{ fail "no #c record with the cycle's indirect bytes"; return 1; }
	"$MTRACE_CHECK" "$BUILD/verdicts" log >report 2>&1
	[ $? -eq 1 ] || { fail "mtrace-check: status $? with definite leaks"; return 1; }
	grep -q "^3,096 (1,031 direct, 2,065 indirect) bytes in 1 blocks are definitely lost in loss record" report ||
		{ fail "no valgrind-style loss record for the cycle"; cat report; return 1; }
	grep -q "^   definitely lost: 3,093 bytes in 3 blocks$" report &&
		grep -q "^   indirectly lost: 5,194 bytes in 5 blocks$" report &&
		grep -q "^     possibly lost: 1,011 bytes in 1 blocks$" report ||
		{ fail "LEAK SUMMARY is not valgrind's:"; sed -n '/LEAK SUMMARY/,$p' report; return 1; }
}

# A pointer left in a frame that returned (below the stack pointer) is no
# root: the block is lost.
t_verdict_stale_frame() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" stale || return 1
	expect_verdicts "$BUILD/verdicts" log "1051:definitely-lost"
}

# A live thread's stack, a live thread's register (only), a live thread's
# static TLS and main's, at muntrace() while the threads wait.
t_verdict_threads() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" threads || return 1
	expect_verdicts "$BUILD/verdicts" log \
		"1061:still-reachable 1062:still-reachable 1071:still-reachable
		 1072:still-reachable" || return 1
	grep -q '^#C scan .* trigger=muntrace threads=4 stopped=3 unstopped=0 ' log ||
		{ fail "the scan did not stop the three threads: $(grep '^#C scan' log)"; return 1; }
}

t_verdict_specific() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" specific || return 1
	expect_verdicts "$BUILD/verdicts" log "1081:still-reachable 1082:still-reachable"
}

# A dlopen()ed module's dynamic TLS holds the only pointer; the loader's
# own blocks (link map, scope, versions, the 1 MiB TLS block, the DTV,
# dlerror state) must all be still reachable.
t_verdict_dlopen_tls() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" dltls "$BUILD/verdict_plugin.so" || return 1
	expect_verdicts "$BUILD/verdicts" log "1091:still-reachable"
}

t_verdict_pool() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" pool || return 1
	expect_verdicts "$BUILD/verdicts" log "1101:still-reachable"
}

t_verdict_realloc() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" realloc || return 1
	expect_verdicts "$BUILD/verdicts" log "300000:still-reachable 1112:definitely-lost"
}

# The child's own leak is the child's verdict; what it inherited is not
# reported as its leak.
t_verdict_fork() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" fork || return 1
	expect_child_verdicts "$BUILD/verdicts" "1121:definitely-lost 1122:still-reachable"
}

# exit() from a second thread: main, stopped in pthread_join, still holds
# its block; the exiting thread's stack is scanned from where it is.
t_verdict_thread_exit() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" thread-exit || return 1
	expect_verdicts "$BUILD/verdicts" log \
		"1131:still-reachable 1132:still-reachable 1133:definitely-lost"
}

# Collection started late: blocks from before mtrace(), in the main arena
# and in a thread's arena, are walked through (heapwalk.c).
t_verdict_late_start() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts_late" || return 1
	expect_verdicts "$BUILD/verdicts_late" log \
		"1181:still-reachable 1182:still-reachable 1183:definitely-lost"
}

# C++: new[] cookies, a secondary base, std::string of both ABIs.
t_verdict_cxx() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts_cxx" || return 1
	expect_verdicts "$BUILD/verdicts_cxx" log \
		"176:still-reachable 40:still-reachable 32:still-reachable
		 1201:still-reachable 1325:still-reachable 224:definitely-lost"
}

# Reports from a signal while eight threads allocate and free: no
# deadlock, every scan stops them all and finds exactly the one leak.
t_verdict_signal_storm() {
	need_libmtrace || return
	local RUN_TIMEOUT=120 f n=0
	vrun log MEMLEAK_CONFIG=signal=USR2,mtraceinit,report=rep.%n "$BUILD/verdicts" storm || return 1
	for f in rep.*; do
		[ -e "$f" ] || continue
		grep -q '^trigger signal$' "$f" || continue
		n=$((n + 1))
		grep -q '^reach scan$' "$f" || { fail "$f: no scan"; return 1; }
		grep -q '^definitely-lost-bytes 1141$' "$f" &&
			grep -q '^indirectly-lost-bytes 0$' "$f" &&
			grep -q '^possibly-lost-bytes 0$' "$f" ||
			{ fail "$f: classes not consistent:"; grep -- '-lost-\|scan-' "$f"; return 1; }
		grep -q '^end$' "$f" || { fail "$f: cut short"; return 1; }
	done
	[ $n -ge 1 ] || { fail "no signal report"; return 1; }
	expect_verdicts "$BUILD/verdicts" log "1141:definitely-lost"
}

# A thread that blocks every signal, sleeping in sigwait(): not waited
# for, reported as not stopped, its whole stack scanned.
t_verdict_blocked_thread() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" blocked || return 1
	grep -q '^#C scan .* threads=2 stopped=0 unstopped=1 ' log ||
		{ fail "not reported as unstopped: $(grep '^#C scan' log)"; return 1; }
	expect_verdicts "$BUILD/verdicts" log "1161:still-reachable 1162:definitely-lost"
}

# A program's own __lsan_default_suppressions() (not exported: found in
# the executable's symbol table) is honoured, and carried in the log.
t_verdict_lsan_default() {
	need_libmtrace || return
	vrun log "$BUILD/verdicts" lsan-default || return 1
	grep -q '^#C suppression leak:leak_on_purpose$' log ||
		{ fail "no #C suppression from __lsan_default_suppressions"; return 1; }
	"$MTRACE_CHECK" "$BUILD/verdicts" log >report 2>&1
	[ $? -eq 0 ] || { fail "status $?: the only leak is suppressed"; cat report; return 1; }
	grep -q '^        suppressed: 1,171 bytes in 1 blocks$' report ||
		{ fail "not counted as suppressed"; cat report; return 1; }
}

# The in-process report carries the same classes as the log.
t_verdict_report() {
	need_libmtrace || return
	traced log MEMLEAK_CONFIG=mtraceinit,report=rep "$BUILD/verdicts" classes >out 2>err ||
		{ fail "status $?"; return 1; }
	grep -q '^definitely-lost-bytes 3093$' rep && grep -q '^definitely-lost-blocks 3$' rep &&
		grep -q '^indirectly-lost-bytes 5194$' rep && grep -q '^possibly-lost-bytes 1011$' rep ||
		{ fail "report classes:"; grep -- '-lost-\|reachable' rep; return 1; }
	grep -q '^leak definitely-lost bytes 1031 blocks 1 indirect-bytes 2065 stack ' rep ||
		{ fail "no leak line for the cycle:"; grep '^leak ' rep; return 1; }
}

# MEMLEAK_CONFIG=reach=0: no scan, no verdicts; mtrace-check reports as
# before (every live block, status 1).
t_verdict_reach_off() {
	need_libmtrace || return
	vrun log MEMLEAK_CONFIG=reach=0 "$BUILD/verdicts" global || return 1
	! grep -q '^#[cC] ' log || { fail "verdict records with reach=0"; return 1; }
	expect_leaks "$BUILD/verdicts" log "1001 1002 1003" || return 1
	"$MTRACE_CHECK" "$BUILD/verdicts" log >report 2>&1
	[ $? -eq 1 ] || { fail "status $? without verdicts"; return 1; }
	grep -q '^Memory not freed:' report || { fail "no Perl table without verdicts"; return 1; }
}

# Suppressions: a file in LeakSanitizer's syntax (given to libmtrace, and
# so carried in the log), and the program's own
# __lsan_default_suppressions (verdicts_cxx.cc defines none: the C program
# is used with a file).
t_verdict_suppressions() {
	need_libmtrace || return
	printf '# a comment\nleak:case_classes\n' >supp
	vrun log "MEMLEAK_CONFIG=suppressions=$PWD/supp" "$BUILD/verdicts" classes || return 1
	grep -q '^#C suppression leak:case_classes$' log || { fail "no #C suppression"; return 1; }
	"$MTRACE_CHECK" "$BUILD/verdicts" log >report 2>&1
	[ $? -eq 0 ] || { fail "status $? with every leak suppressed"; cat report; return 1; }
	grep -q '^        suppressed: 9,298 bytes in 9 blocks$' report &&
		grep -Eq '^ +9 +9298 leak:case_classes$' report ||
		{ fail "suppressions not reported"; cat report; return 1; }
	# The same from the command line, on a log without them.
	vrun log "$BUILD/verdicts" classes || return 1
	"$MTRACE_CHECK" --suppressions supp "$BUILD/verdicts" log >report 2>&1
	[ $? -eq 0 ] || { fail "--suppressions: status $?"; return 1; }
	"$MTRACE_CHECK" --fail-on=possible "$BUILD/verdicts" log >/dev/null 2>&1
	[ $? -eq 1 ] || { fail "--fail-on=possible: status $?"; return 1; }
}

# The scan stops threads by signal, never by ptrace: it works under strace
# and gdb, where LeakSanitizer cannot start.
t_verdict_under_tracers() {
	need_libmtrace || return
	command -v strace >/dev/null || skip "strace not installed"
	limited strace -f -o /dev/null env MALLOC_TRACE=log LD_PRELOAD="$LIB" \
		"$BUILD/verdicts" threads >out 2>err || { fail "under strace: $(cat err)"; return 1; }
	expect_verdicts "$BUILD/verdicts" log \
		"1061:still-reachable 1062:still-reachable 1071:still-reachable
		 1072:still-reachable" || { fail "under strace"; return 1; }
	command -v gdb >/dev/null || skip "gdb not installed"
	rm -f log
	limited gdb -batch -nx -ex 'set startup-with-shell off' \
		-ex "set environment MALLOC_TRACE=$PWD/log" \
		-ex "set environment LD_PRELOAD=$LIB" -ex run \
		--args "$BUILD/verdicts" threads >out 2>err || { fail "under gdb: $(tail -3 err)"; return 1; }
	expect_verdicts "$BUILD/verdicts" log \
		"1061:still-reachable 1062:still-reachable 1071:still-reachable
		 1072:still-reachable" || { fail "under gdb: $(tail -5 out)"; return 1; }
	verdicts_under_valgrind
}

# Under valgrind the scan cannot read the process's memory (valgrind's own
# is mapped there and reading it is a SIGSEGV): no verdicts, said once on
# stderr, the program runs to its end and its leaks are all listed.
verdicts_under_valgrind() {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local st
	rm -f log
	# valgrind hands LD_PRELOAD to the program, after its own preloads.
	limited env MALLOC_TRACE=log LD_PRELOAD="$LIB" valgrind -q --tool=none \
		"$BUILD/verdicts" threads >out 2>err
	st=$?
	[ $st -eq 0 ] || { fail "under valgrind: status $st: $(tail -3 err)"; return 1; }
	[ "$(grep -c 'no reachability verdicts under valgrind' err)" -eq 1 ] ||
		{ fail "under valgrind: not said once: $(cat err)"; return 1; }
	! grep -q '^#C scan ' log || { fail "under valgrind: a scan record"; return 1; }
	check_grammar log || return 1
	"$MTRACE_CHECK" "$BUILD/verdicts" log >check.out 2>&1
	st=$?
	[ $st -eq 1 ] && grep -q '^Memory not freed' check.out ||
		{ fail "under valgrind: mtrace-check status $st: $(head -5 check.out)"; return 1; }
}

# ---- verdicts that do not depend on stale memory (issue 25) ----------------
# progs/verdict_shapes.c: every block the program means has a size of its
# own, and gets the class valgrind --leak-check=full gives it
# (verdict-vs-valgrind checks that against valgrind itself).
SHAPES=$BUILD/verdict_shapes

# shape CASE "SIZE:CLASS ..." [ARG]: the case's log, its verdicts.
shape() {
	vrun log "$SHAPES" "$1" ${3:+"$3"} || return 1
	expect_verdicts "$SHAPES" log "$2"
}

churn_leaks() {
	local i want=""
	for i in 0 1 2 3 4 5 6 7; do want="$want $((1000 + i)):definitely-lost"; done
	echo "$want"
}

# Heavy malloc/realloc/free, then eight leaks in blocks the program never
# writes: glibc's free-list words in recycled chunks must not hold them
# (chunkwords.h).  The kept 500-byte blocks are still reachable.
# Each also without the thread caches and with two arenas shared by the
# eight threads (more chunks come back from glibc's bins).
churn_cases() {
	local t
	for t in "${GLIBC_TUNABLES:-}" glibc.malloc.tcache_count=0 glibc.malloc.arena_max=2; do
		rm -f log
		GLIBC_TUNABLES=$t shape "$1" "$(churn_leaks)" || { fail "with GLIBC_TUNABLES=$t"; return 1; }
	done
}

t_verdict_churn() {
	need_libmtrace || return
	churn_cases churn
}

t_verdict_churn_threads() {
	need_libmtrace || return
	churn_cases churn-threads
}

# glibc's last remainder (a word of the main arena, in libc's data) points
# into a leak's middle: no pointer of the program's (scan/mainarena.h).
# Also with fast bins off, with one arena, with freed memory perturbed.
t_verdict_last_remainder() {
	need_libmtrace || return
	local t
	for t in "${GLIBC_TUNABLES:-}" glibc.malloc.mxfast=0 glibc.malloc.arena_max=1 \
		glibc.malloc.perturb=85; do
		rm -f log
		GLIBC_TUNABLES=$t shape last-remainder "2303:definitely-lost" ||
			{ fail "with GLIBC_TUNABLES=$t"; return 1; }
	done
}

# A death by a signal's default action gets the verdicts of an exit, as
# valgrind gives its leak check then (a server stopped with SIGTERM): the
# dying thread's registers and stack as the signal found them.
t_verdict_killed() {
	need_libmtrace || return
	local sig num pid prog st
	for sig in TERM HUP; do
		rm -f log out
		traced log MTRACE_SCAN_DEBUG=p "$SHAPES" killed >out 2>err &
		pid=$!
		wait_for grep -qs '^ready ' out || { fail "never ready: $(cat out err)"; return 1; }
		prog=$(awk '$1 == "ready" { print $2 }' out)
		wait_for main_sleeps "$prog"
		kill -$sig "$prog"
		wait $pid
		st=$?
		num=$(kill -l $sig)
		[ $st -eq $((128 + num)) ] || { fail "SIG$sig: status $st: $(cat err)"; return 1; }
		grep -q "^#e signal sig=$num\$" log || { fail "SIG$sig: no end record"; return 1; }
		expect_verdicts "$SHAPES" log \
			"2501:definitely-lost 2502:still-reachable 2503:still-reachable" ||
			{ fail "SIG$sig"; return 1; }
		"$MTRACE_CHECK" "$SHAPES" log >report 2>&1
		grep -q "^The program was killed by signal $num (SIG$sig) (line [0-9]*): the verdicts above are\$" report ||
			{ fail "SIG$sig: the check's end: $(tail -3 report)"; return 1; }
	done
}

# Frames a handler left on a sigaltstack are dead once it returns (the
# stack mapped, or a heap block), and exit() from a handler on that stack
# still finds what main's interrupted frame holds (roots.c).
t_verdict_altstack() {
	need_libmtrace || return
	local how
	for how in mmap malloc; do
		rm -f log
		shape "altstack-$how" "2401:definitely-lost 2402:still-reachable" ||
			{ fail "sigaltstack by $how"; return 1; }
	done
	rm -f log
	shape altstack-return "2403:definitely-lost"
}

# A helper's frame, dead before exit() or before main() returns, held
# copies of the only pointer (lastframe.c).
t_verdict_exit_helper() {
	need_libmtrace || return
	shape exit-helper "2001:definitely-lost"
}

t_verdict_return_helper() {
	need_libmtrace || return
	shape return-helper "2002:definitely-lost"
}

t_verdict_cycle_helper() {
	need_libmtrace || return
	shape cycle-helper "2101:definitely-lost 2102:indirectly-lost"
}

# 100 threads, each given a block and returning one, all lost: the exited
# threads' cached stacks and descriptors are no roots.
t_verdict_thread_pass() {
	need_libmtrace || return
	local i want=""
	for i in $(seq 0 99); do
		want="$want $((3000 + i)):definitely-lost $((3100 + i)):definitely-lost"
	done
	shape thread-pass "$want"
}

# Every way out of a process gets verdicts, from the caller's frame up.
t_verdict_exit_paths() {
	need_libmtrace || return
	local c
	for c in _exit _Exit quick-exit pthread-exit; do
		rm -f log
		shape "$c" "2055:definitely-lost 2077:still-reachable" ||
			{ fail "case $c"; return 1; }
	done
}

# A fork child that ends with _exit(): its own log, its own verdicts.
t_verdict_fork_exit() {
	need_libmtrace || return
	vrun log "$SHAPES" fork-_exit || return 1
	expect_child_verdicts "$SHAPES" "2055:definitely-lost 2077:still-reachable"
}

# vfork()+exec leaves the parent's log alone (no "#e exec" in it); the
# parent's report finds its leak, then SIGKILL: mtrace-check must not
# give an all-clear.
t_verdict_vfork_kill() {
	need_libmtrace || return
	traced log "$SHAPES" vfork-kill >out 2>err
	local st=$?
	[ $st -eq 137 ] || { fail "status $st, not SIGKILL: $(head -3 err)"; return 1; }
	! grep -q '^#e' log || { fail "the parent's log has an end record: $(grep '^#e' log)"; return 1; }
	[ "$(ls log.* 2>/dev/null | wc -l)" -eq 0 ] || { fail "a log of the vfork child: $(ls log.*)"; return 1; }
	grep -q '^#C scan .*trigger=mtrace' log || { fail "no report scan"; return 1; }
	"$MTRACE_CHECK" "$SHAPES" log >report 2>&1
	[ $? -eq 1 ] || { fail "mtrace-check status $? on a killed leaking process"; cat report; return 1; }
	grep -q '2,123 bytes in 1 blocks are definitely lost' report ||
		{ fail "the report's leak is not named"; cat report; return 1; }
	! grep -q 'No memory leaks' report || { fail "all-clear"; cat report; return 1; }
}

# dlopen()+dlclose() of many modules at once: the loader's own blocks
# (the segments of _dl_find_object's table, which ld.so keeps only by an
# aligned pointer into them; link maps) are no leaks, as valgrind says.
t_verdict_dlclose() {
	need_libmtrace || return
	local libs=() l
	for l in "$BUILD"/*.so /lib/x86_64-linux-gnu/lib{z.so.1,zstd.so.1,lzma.so.5,m.so.6,unwind.so.8,deflate.so.0,bz2.so.1.0,ffi.so.8,gmp.so.10,expat.so.1,uuid.so.1,acl.so.1,attr.so.1,cap.so.2,crypt.so.1,pcre2-8.so.0,gcrypt.so.20,gpg-error.so.0,sqlite3.so.0,xml2.so.2,curl.so.4,ssl.so.3,crypto.so.3}; do
		[ -e "$l" ] && libs+=("$l")
	done
	vrun log "$SHAPES" dlclose "${libs[@]}" || return 1
	expect_verdicts "$SHAPES" log "2201:definitely-lost"
}

# The verdicts must not depend on which string functions glibc picked for
# this CPU: the verdict tests again under other variants (each changes
# memcpy, memset or strlen on x86-64 machines that have the feature; a
# variant the CPU cannot honour is the default again).
VERDICT_VARIANTS=(
	"glibc.cpu.hwcaps=-AVX2"
	"glibc.cpu.hwcaps=-AVX2,-AVX,-ERMS,-FSRM"
	"glibc.cpu.hwcaps=-AVX2,-AVX,-SSE4_2,-SSSE3,-ERMS,-FSRM,-AVX_Fast_Unaligned_Load"
	"glibc.cpu.hwcaps=-AVX_Fast_Unaligned_Load"
	"glibc.cpu.hwcaps=Prefer_ERMS,Prefer_FSRM"
)
VARIANT_TESTS=(
	verdict_global verdict_main_stack verdict_classes verdict_stale_frame
	verdict_threads verdict_thread_exit verdict_cxx verdict_realloc
	verdict_churn verdict_churn_threads verdict_exit_helper
	verdict_return_helper verdict_cycle_helper verdict_thread_pass
	verdict_exit_paths verdict_fork_exit verdict_vfork_kill verdict_dlclose
	verdict_last_remainder verdict_altstack verdict_killed
)

t_verdict_variants() {
	need_libmtrace || return
	local v fn d bad=""
	for v in "${VERDICT_VARIANTS[@]}"; do
		for fn in "${VARIANT_TESTS[@]}"; do
			d=$(mktemp -d "$PWD/v.XXXXXX")
			(cd "$d" && GLIBC_TUNABLES=$v "t_$fn" >out.txt 2>&1) ||
				bad="$bad
    $fn under $v: $(head -5 "$d/out.txt")"
		done
	done
	[ -z "$bad" ] || { fail "verdicts differ under other string functions:$bad"; return 1; }
}

# valgrind itself on the same shapes: the same bytes and blocks in each
# class it reports (its still reachable figure counts libc's own blocks,
# which libmtrace does not trace: not compared).
t_verdict_vs_valgrind() {
	need_libmtrace || return
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local c bad="" ours theirs
	for c in churn exit-helper return-helper cycle-helper _exit thread-pass \
		last-remainder altstack-mmap altstack-malloc altstack-return; do
		rm -f log
		vrun log "$SHAPES" "$c" || return 1
		"$MTRACE_CHECK" --fail-on=none "$SHAPES" log >report 2>&1
		ours=$(grep -E '^ +(definitely|indirectly|possibly) lost:' report | sed 's/^ *//')
		limited valgrind --leak-check=full --show-leak-kinds=all "$SHAPES" "$c" >vg.out 2>vg.err
		theirs=$(grep -E '(definitely|indirectly|possibly) lost:' vg.err | sed 's/^==[0-9]*== *//')
		[ -n "$theirs" ] || { fail "$c: no LEAK SUMMARY from valgrind: $(tail -3 vg.err)"; return 1; }
		[ "$ours" = "$theirs" ] || bad="$bad
    $c: libmtrace [$(echo $ours)] valgrind [$(echo $theirs)]"
	done
	[ -z "$bad" ] || { fail "not valgrind's verdicts:$bad"; return 1; }
}

# Under valgrind's memcheck its allocator replaces libmtrace's: nothing is
# traced, libmtrace says so, the log's header says so, and mtrace-check
# refuses the log (status 2), never "No memory leaks."
t_untraced_valgrind() {
	need_libmtrace || return
	command -v valgrind >/dev/null || skip "valgrind not installed"
	limited env MALLOC_TRACE=log LD_PRELOAD="$LIB" valgrind -q --leak-check=no \
		"$BUILD/verdicts" global >out 2>err || { fail "status $?: $(tail -3 err)"; return 1; }
	grep -q "valgrind's allocator (its tool 'memcheck') replaces libmtrace's: nothing is traced" err ||
		{ fail "not said on stderr: $(cat err)"; return 1; }
	grep -q '^#v .* untraced=valgrind-memcheck' log || { fail "no untraced= in the header: $(head -3 log)"; return 1; }
	"$MTRACE_CHECK" "$BUILD/verdicts" log >report 2>err
	local st=$?
	[ $st -eq 2 ] || { fail "mtrace-check status $st"; cat report err; return 1; }
	grep -q 'not traced: the program ran under valgrind-memcheck' err ||
		{ fail "mtrace-check does not say why: $(cat err)"; return 1; }
	! grep -q 'No memory leaks' report || { fail "an all-clear"; return 1; }
}
