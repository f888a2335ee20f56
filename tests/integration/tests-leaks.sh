# SPDX-License-Identifier: GPL-3.0-or-later
# tests-leaks.sh - known leaks are reported exactly: static functions,
# strdup, C++ templates, mtraceinit, exit paths, dlopen, depth, options.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

# leak_run PROGRAM "SIZES" [VAR=VALUE...] [-- ARGS...]: trace PROGRAM (from
# BUILD) into ./log and expect exactly SIZES as leaks.
leak_run() {
	local prog=$1 want=$2 envs=() st
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -eq 0 ] || shift
	traced log "${envs[@]}" "$BUILD/$prog" "$@" >out 2>err
	st=$?
	[ $st -eq 0 ] || { fail "$prog exited with $st: $(head -c 300 err)"; return 1; }
	[ ! -s err ] || { fail "unexpected stderr: $(head -c 300 err)"; return 1; }
	expect_leaks "$BUILD/$prog" log "$want" || return 1
	[ "$MODE" != libmtrace ] || [ ! -s log ] || [ "$(sed -n 2p log | cut -c1-3)" != "#v " ] ||
		[ "$(log_program log)" = "$BUILD/$prog" ] || { fail "#p is '$(log_program log)', not $BUILD/$prog"; return 1; }
}

t_static() {
	leak_run leak_static "63 100 200 5000" || return 1
	leak_callers_match 'leak_static\.c:[0-9]+' || return 1
	[ "$MODE" = libmtrace ] || return 0
	expect_stack_top log 100 make_record main &&
		expect_stack log 5000 main
}

t_static_O0() {
	leak_run leak_static_O0 "63 100 200 5000" || return 1
	leak_callers_match 'leak_static\.c:[0-9]+' || return 1
	[ "$MODE" = libmtrace ] || return 0
	expect_stack log 63 make_table main
}

# Non-PIE: /usr/bin/mtrace cannot place the WHERE offsets (relative to the
# 0x400000 link base), so only the sizes and our stack records are checked.
t_static_nopie() {
	leak_run leak_static_nopie "63 100 200 5000" || return 1
	[ "$MODE" = libmtrace ] || return 0
	[ "$(awk '$1 == "#m" && $2 == 0 { print $3 }' log)" = 0x0 ] || note "module 0 is not the executable at bias 0x0"
	expect_stack_top log 100 make_record main
}

t_strdup() {
	leak_run leak_strdup "5 13 41" || return 1
	[ "$MODE" = libmtrace ] || return 0
	expect_stack log 13 remember main &&
		expect_stack log 5 remember_prefix main
}

t_template() {
	leak_run leak_template "40 100 120 128" || return 1
	[ "$MODE" = libmtrace ] || return 0
	expect_stack log 100 'Pool<int>::grab\(unsigned long\)' main &&
		expect_stack log 40 'Pool<Widget>::make_one\(\)' main
}

# Collection from load time: libstdc++'s own start-up allocations must be
# released by __gnu_cxx::__freeres, leaving exactly the program's leaks.
t_template_mtraceinit() {
	need_libmtrace || return
	leak_run leak_template "40 100 120 128" MEMLEAK_CONFIG=mtraceinit
}

t_cxx_demangle() {
	need_libmtrace || return
	leak_run leak_template "40 100 120 128" || return 1
	grep -qE '^#f [0-9]+ 0x[0-9a-f]+ 0x[0-9a-f]+ Pool<int>::grab\(unsigned long\)$' log ||
		{ fail "no demangled '#f ... Pool<int>::grab(unsigned long)' record"; grep '^#f' log | head; return 1; }
	grep -qE '^#f .* operator new(\[\])?\(unsigned long\)$' log ||
		{ fail "no demangled '#f ... operator new(unsigned long)' record"; return 1; }
	grep -qE "^#f [0-9]+ 0x[0-9a-f]+ 0x[0-9a-f]+ .*std::vector<int" log ||
		{ fail "no demangled std::vector<int...> #f record"; return 1; }
	! grep -qE '^#f .* _Z' log || { fail "mangled names in #f records:"; grep -m3 '^#f .* _Z' log; return 1; }
	check_symbol_records log
}

t_mtraceinit() {
	need_libmtrace || return
	"$BUILD/mtraceinit" >native.out
	leak_run mtraceinit "48 96" MEMLEAK_CONFIG=mtraceinit || return 1
	cmp -s out native.out || { fail "output differs: $(cat out)"; return 1; }
	rm -f log
	traced log "$BUILD/mtraceinit" >out2 || { fail "untraced run failed"; return 1; }
	if [ -f log ] && grep -qE '^(@ [^ ]+ )?[-+<>] ' log; then
		fail "events logged without mtrace() or mtraceinit"
		return 1
	fi
}

# A shell script under mtraceinit with a log: every process (the shell,
# its commands) logs, and none leaves a report file unless reports were
# asked for (report=); without a log, the exit report is the output.
t_mtraceinit_no_reports() {
	need_libmtrace || return
	limited env MEMLEAK_CONFIG=mtraceinit MALLOC_TRACE="$T/log" LD_PRELOAD="$LIB" \
		sh -c "'$BUILD/mtraceinit' >/dev/null; cat /dev/null" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	[ "$(ls log* | wc -l)" -ge 3 ] || { fail "not every process logged: $(ls)"; return 1; }
	[ -z "$(ls ./*.memlog 2>/dev/null)" ] || { fail "report files: $(ls ./*.memlog)"; return 1; }
	local f
	for f in log*; do
		grep -q '^#C scan ' "$f" || { fail "$f: no verdicts"; return 1; }
	done
	limited env MEMLEAK_CONFIG=mtraceinit,report=rep.%p LD_PRELOAD="$LIB" \
		"$BUILD/mtraceinit" >/dev/null 2>err || { fail "report=: $(cat err)"; return 1; }
	[ -n "$(ls rep.* 2>/dev/null)" ] || { fail "report= asked, no report"; return 1; }
	mkdir nolog && cd nolog || return 1
	limited env MEMLEAK_CONFIG=mtraceinit LD_PRELOAD="$LIB" "$BUILD/mtraceinit" >/dev/null 2>err ||
		{ fail "no log: $(cat err)"; return 1; }
	[ -n "$(ls ./*.memlog 2>/dev/null)" ] || { fail "no log and no exit report"; return 1; }
}

# The program sets MALLOC_TRACE itself just before mtrace().
t_setenv() {
	limited env LD_PRELOAD="$LIB" "$BUILD/setenv_trace" "$T/log" >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	[ -f log ] || { fail "no log: MALLOC_TRACE set by the program before mtrace() was not used"; return 1; }
	expect_leaks "$BUILD/setenv_trace" log "77 88"
}

# libc's own memory (NSS, locale, iconv's gconv module, tzdata, regex) is
# released by __libc_freeres before the log ends: no leaks, whether
# tracing starts at mtrace() or at load.
t_libc_internals() {
	leak_run libc_internals "" -- mtrace || { fail "(mtrace() called)"; return 1; }
	[ "$MODE" = libmtrace ] || return 0
	rm -f log
	leak_run libc_internals "" MEMLEAK_CONFIG=mtraceinit || { fail "(MEMLEAK_CONFIG=mtraceinit)"; return 1; }
}

# exit_case MODE "SIZES": the log is complete however the program ends, and
# a second mtrace() call does not restart it.
exit_case() {
	leak_run exitpaths "$2" -- "$1" || return 1
	[ "$(grep -c '^= Start$' log)" -eq 1 ] || { fail "'= Start' count is not 1"; return 1; }
}

t_exit_return() { exit_case return "31 62 93"; }
t_exit_exit() { exit_case exit "31 62 93"; }
t_exit__exit() { exit_case _exit "31 62 93"; }
t_exit__Exit() { exit_case _Exit "31 62 93"; }
t_exit_quick() { exit_case quick_exit "31 62 93"; }

# Stacks of allocations in a signal handler continue past the signal frame.
t_signal_stack() {
	leak_run signal_stack "51 153" || return 1
	[ "$MODE" = libmtrace ] || return 0
	expect_stack log 153 handler_alloc on_signal send_signal main
}

# 2^14 distinct stacks, each used twice: written once each, never twice.
t_stacks() {
	need_libmtrace || return
	local n dups
	leak_run stacks "" || return 1
	n=$(grep -c '^#s ' log)
	[ "$n" -ge 16384 ] || { fail "only $n stack records for 16384 distinct stacks"; return 1; }
	dups=$(awk '$1 == "#s" { $1 = $2 = ""; print }' log | sort | uniq -d | wc -l)
	[ "$dups" -eq 0 ] || { fail "$dups stacks written more than once"; return 1; }
}

# A symbol whose demangled name is ~127 kB: its "#f" record holds all of it,
# exactly as c++filt demangles the dynamic symbol.
t_long_names() {
	need_libmtrace || return
	local mangled want
	leak_run long_names 1000 || return 1
	mangled=$(nm -D --defined-only "$BUILD/long_names" | awk '$3 ~ /Deep/ { print $3; exit }')
	want=$(c++filt "$mangled")
	[ ${#want} -gt 100000 ] || { fail "test setup: demangled name only ${#want} bytes"; return 1; }
	awk '$1 == "#f" { sub(/^#f [^ ]+ [^ ]+ [^ ]+ /, ""); print }' log | grep -qxF "$want" ||
		{ fail "no #f record with the full ${#want}-byte name; longest #f line: $(awk '$1 == "#f" { if (length($0) > m) m = length($0) } END { print m }' log)"; return 1; }
}

# Program and plugin live in a directory whose path is ~3000 bytes long.
t_long_paths() {
	local dir=$T i
	for i in $(seq 60); do dir=$dir/directory-with-a-rather-long-name-$i; done
	mkdir -p "$dir" && cp "$BUILD/dlopen_main" "$BUILD/plugin.so" "$dir/" || { skip "cannot create a ${#dir}-byte path"; return; }
	traced log "$dir/dlopen_main" "$dir/plugin.so" >out 2>err || { fail "exit status $?: $(head -c 300 err)"; return 1; }
	expect_leaks "$dir/dlopen_main" log "77 77 99" || return 1
	grep -qF "@ $dir/plugin.so:" log || { fail "no WHERE with the full ${#dir}-byte plugin path"; return 1; }
	leak_callers_match '(dlopen_main|plugin)\.c:[0-9]+' || return 1
	[ "$MODE" = libmtrace ] || return 0
	[ "$(log_program log)" = "$dir/dlopen_main" ] || { fail "#p is not the ${#dir}-byte path"; return 1; }
	grep -qE "^#m [0-9]+ 0x[0-9a-f]+ [-0-9a-f]+ $dir/plugin\.so\$" log || { fail "no #m with the full plugin path"; return 1; }
}

# Coroutine (ucontext on a heap stack), alternate signal stack, realigned
# frame, alloca: every unwinder gets through, or at least stops safely.
t_odd_stacks() {
	local u
	for u in "" unwind=libunwind unwind=glibc unwind=fp; do
		rm -f log
		[ "$MODE" = libmtrace ] || [ -z "$u" ] || continue
		leak_run odd_stacks "11 22 44 55" ${u:+MEMLEAK_CONFIG=$u} || { fail "${u:-default unwinder}"; return 1; }
		[ "$MODE" = libmtrace ] && [ "$u" != unwind=fp ] || continue
		expect_stack log 11 take coroutine &&
			expect_stack log 22 take on_signal main &&
			expect_stack log 44 take realigned main &&
			expect_stack log 55 take with_alloca main || { fail "${u:-default unwinder}"; return 1; }
	done
}

# A signal handler allocates every 100 us, interrupting code at arbitrary
# instructions: each unwinder has to start from such signal frames.
t_async_unwind() {
	local u
	for u in "" unwind=libunwind unwind=glibc unwind=fp; do
		[ "$MODE" = libmtrace ] || [ -z "$u" ] || continue
		rm -f log
		leak_run async_unwind "" ${u:+MEMLEAK_CONFIG=$u} || { fail "${u:-default unwinder}"; return 1; }
		grep -q '^ticks>0 1$' out || { fail "no signal arrived: $(cat out)"; return 1; }
	done
}

# malloc() called from generated code without a module or unwind info.
t_jit() {
	local u
	for u in "" unwind=libunwind unwind=glibc unwind=fp; do
		[ "$MODE" = libmtrace ] || [ -z "$u" ] || continue
		rm -f log
		leak_run jit "66 77" ${u:+MEMLEAK_CONFIG=$u} || { fail "${u:-default unwinder}"; return 1; }
		grep -qE '^@ \[0x[0-9a-f]+\] \+ 0x[0-9a-f]+ 0x42( |$)' log ||
			{ fail "${u:-default unwinder}: the 66-byte block's WHERE is not '[0xADDR]'"; return 1; }
	done
}

# A thread with a 64 KiB stack uses most of it before calling malloc: the
# tracer may need more stack than malloc itself, but not 8 KiB more.
t_small_stack() {
	local k native=0 traced_max=0
	for k in $(seq 63 -1 16); do
		"$BUILD/small_stack" $k >/dev/null 2>&1 && { native=$k; break; }
	done
	[ $native -gt 8 ] || { skip "small_stack does not run natively"; return; }
	leak_run small_stack 33 -- $((native - 8)) ||
		{ fail "with $((native - 8)) KiB used (natively up to $native KiB work)"; return 1; }
	for k in $(seq $native -1 $((native - 8))); do
		traced probe.log "$BUILD/small_stack" $k >/dev/null 2>&1 && { traced_max=$k; break; }
	done
	note "of a 64 KiB thread stack, $native KiB may be used before malloc() natively, $traced_max KiB traced"
}

# exit() or _exit() from a signal handler that interrupted an allocation
# (10 runs each): the tracer must not wait for a lock its own thread holds.
t_signal_exit() {
	local i st
	for i in $(seq 20); do
		rm -f log
		traced log "$BUILD/signal_exit" $([ $i -gt 10 ] && echo _exit) >out 2>err
		st=$?
		[ $st -ne 124 ] && [ $st -ne 137 ] ||
			{ fail "run $i of 20 (1-10 exit, 11-20 _exit) hung (killed after ${RUN_TIMEOUT}s)"; return 1; }
		[ $st -eq 3 ] || { fail "run $i: exit status $st: $(head -c 300 err)"; return 1; }
	done
}

# mtrace() after muntrace() neither restarts nor truncates the log.
t_restart() {
	exit_case restart "31 62"
}

# Frees done by global destructors, atexit handlers and ELF destructors
# are still logged: none of those blocks is a leak.
t_exit_frees() {
	leak_run exit_frees 555
}

t_muntrace() {
	exit_case muntrace "31 62" || return 1
	[ "$(tail -n1 log)" = "= End" ] || { fail "last line is not '= End': $(tail -n1 log)"; return 1; }
	[ "$(grep -c '^= End$' log)" -eq 1 ] || { fail "'= End' count is not 1"; return 1; }
}

# The plugin is loaded, leaks and is dlclose()d twice: each load has its
# "#m" record and a later "#u", and the leak's stack still resolves to the
# plugin's static helper.
t_dlopen() {
	local mid mids m_line u_line
	leak_run dlopen_main "77 77 99" -- "$BUILD/plugin.so" || return 1
	[ "$MODE" = libmtrace ] || return 0
	mids=$(awk '$1 == "#m" && $NF ~ /\/plugin\.so$/ { print $2 }' log)
	# Reloaded at the same place, the plugin keeps its record (one id);
	# elsewhere it gets a second one.
	case $(wc -w <<<"$mids") in
	1 | 2) ;;
	*) fail "plugin.so #m records for ids: [$mids], expected 1 or 2"; return 1 ;;
	esac
	for mid in $mids; do
		m_line=$(grep -n -m1 "^#m $mid " log | cut -d: -f1)
		u_line=$(grep -n -m1 "^#u $mid\$" log | cut -d: -f1)
		[ -n "$u_line" ] || { fail "no '#u $mid' record after dlclose"; return 1; }
		[ "$u_line" -gt "$m_line" ] || { fail "#u $mid before its #m"; return 1; }
	done
	expect_stack log 77 plugin_helper plugin_leak main
}

# A plugin reloaded 5000 times (it allocates in its constructor): memory
# and log records stay bounded, whatever the history (issue 12).  Time per
# cycle is measured by make bench, not here.
t_reload() {
	need_libmtrace || return
	local a b per_cycle m s
	traced log "$BUILD/reload" "$BUILD/reload_plugin.so" 5000 1000 >out 2>err ||
		{ fail "exit status $?: $(cat err)"; return 1; }
	a=$(awk '$1 == "rss" && $2 == 1000 { print $3 }' out)
	b=$(awk '$1 == "rss" && $2 == 5000 { print $3 }' out)
	[ -n "$a" ] && [ -n "$b" ] || { fail "no rss lines: $(cat out)"; return 1; }
	per_cycle=$(((b - a) / 4000))
	m=$(grep -c '^#m .*/reload_plugin\.so$' log)
	s=$(grep -c '^#s ' log)
	note "RSS +$per_cycle bytes a cycle from cycle 1000 to 5000; $m #m records of the plugin, $s stack records"
	[ "$per_cycle" -le 512 ] || { fail "RSS grows $per_cycle bytes a cycle (limit 512)"; return 1; }
	[ "$m" -le 4 ] || { fail "$m #m records for one plugin reloaded at few places"; return 1; }
	[ "$s" -le 200 ] || { fail "$s stack records: stacks are not reused across reloads"; return 1; }
	expect_leaks "$BUILD/reload" log ""
}

# A copy of the plugin loaded (likely at the same address) after the first
# is dlclose()d: the second leak's frames belong to the copy's "#m" record.
t_dlopen_copy() {
	local where
	cp "$BUILD/plugin.so" a.so && cp "$BUILD/plugin.so" b.so
	leak_run dlopen_main "77 77 99" -- "$T/a.so" "$T/b.so" || return 1
	[ "$MODE" = libmtrace ] || return 0
	where=$(awk '$1 == "#m" { p = $0; sub(/^#m [^ ]+ [^ ]+ [^ ]+ /, "", p); path[$2] = p }
		$1 == "#s" { stack[$2] = $3 }
		$1 == "@" && $3 == "+" && $5 == "0x4d" { split(stack[substr($6, 2)], f, ":"); print path[f[1]] }' log | tr '\n' ' ')
	[ "$where" = "$T/a.so $T/b.so " ] ||
		{ fail "frame 0 of the two plugin leaks lies in [$where], expected a.so then b.so"; return 1; }
}

# RTLD_DEEPBIND makes the plugin's malloc/free bypass the preload: the
# tracer must either strip the flag (then the log is exact) or warn.
t_dlopen_deepbind() {
	need_libmtrace || return
	traced log "$BUILD/deepbind_main" "$BUILD/plugin.so" >out 2>err || { fail "exit status $?: $(cat err)"; return 1; }
	if grep -q '^libmtrace:' err; then
		note "warned: $(cat err)"
		return 0
	fi
	expect_leaks "$BUILD/deepbind_main" log 300 || { fail "(no warning on stderr either)"; return 1; }
}

# first_frames LOG: the first frame of each stack record, sorted.
first_frames() {
	awk '$1 == "#s" { print $3 }' "$1" | sort -u
}

# depth_case N LEVELS: with depth=N every stack has at most N frames.
depth_case() {
	local conf=${1:+depth=$1} max
	rm -f log
	leak_run deep 64 ${conf:+MEMLEAK_CONFIG=$conf} -- "$2" || return 1
	max=$(max_frames log)
	[ "$(log_field log depth)" = "${1:-32}" ] ||
		{ fail "#v depth=$(log_field log depth), expected ${1:-32}"; return 1; }
	echo "$max"
}

t_depth() {
	need_libmtrace || return
	local max
	max=$(depth_case 4 40) || { echo "$max"; return 1; }
	[ "$max" -ge 1 ] && [ "$max" -le 4 ] || { fail "depth=4: $max frames"; return 1; }
	max=$(depth_case 1 40) || { echo "$max"; return 1; }
	[ "$max" -eq 1 ] && [ "$(min_frames log)" -eq 1 ] || { fail "depth=1: $max frames"; return 1; }
	first_frames log >first.1 # depth=1 takes the caller without a walk
	max=$(depth_case "" 40) || { echo "$max"; return 1; }
	[ "$max" -eq 32 ] || { fail "default depth: $max frames, expected 32 (recursion is 40 deep)"; return 1; }
	first_frames log >first.32
	[ -s first.1 ] && cmp -s first.1 first.32 ||
		{ fail "depth=1's frames ($(tr '\n' ' ' <first.1)) are not the full stacks' first ($(tr '\n' ' ' <first.32))"; return 1; }
	# The same through the ring (track/offload.h: a live log, the ring from
	# the first stack on, when there are two CPUs) as without it.
	local o
	for o in 0 1; do
		rm -f log log.*
		traced log MEMLEAK_CONFIG=log=live,depth=1,offload=$o "$BUILD/offload" >out 2>err ||
			{ fail "offload=$o: exit status $?: $(head -c 300 err)"; return 1; }
		first_frames log >first.ring$o
	done
	[ "$(wc -l <first.ring0)" -ge 3 ] && cmp -s first.ring0 first.ring1 ||
		{ fail "depth=1 through the ring: $(tr '\n' ' ' <first.ring1), without it $(tr '\n' ' ' <first.ring0)"; return 1; }
	max=$(depth_case 256 300) || { echo "$max"; return 1; }
	[ "$max" -eq 256 ] || { fail "depth=256: $max frames, expected 256 (recursion is 300 deep)"; return 1; }
}

# An unknown option: one warning line, the other options still apply.
t_config_unknown() {
	need_libmtrace || return
	"$BUILD/mtraceinit" >native.out
	traced log MEMLEAK_CONFIG=mtraceinit,frobnicate=3,depth=8 "$BUILD/mtraceinit" >out 2>err ||
		{ fail "exit status $?"; return 1; }
	cmp -s out native.out || { fail "output differs: $(cat out)"; return 1; }
	[ "$(wc -l <err)" -eq 1 ] && grep -q '^libmtrace:' err ||
		{ fail "stderr is not one 'libmtrace:' line: $(cat err)"; return 1; }
	[ "$(log_field log depth)" = 8 ] || { fail "depth=8 after the unknown option ignored"; return 1; }
	expect_leaks "$BUILD/mtraceinit" log "48 96"
}

t_unwinders() {
	need_libmtrace || return
	local u
	for u in libunwind glibc fp; do
		rm -f log
		leak_run leak_strdup "5 13 41" MEMLEAK_CONFIG=unwind=$u || { fail "unwind=$u"; return 1; }
		[ "$(log_field log unwinder)" = $u ] ||
			{ fail "unwind=$u: #v says unwinder=$(log_field log unwinder)"; return 1; }
		[ $u = fp ] || expect_stack log 13 remember main || { fail "unwind=$u"; return 1; }
	done
}
