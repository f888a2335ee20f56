#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Report tests (issue 4): traced programs run as subprocesses with
# LD_PRELOAD; their reports are read back and compared with what each
# program is built to do.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
LIB=$top/libmtrace/libmtrace.so
BUILD=$here/build
passed=0 failed=0

fail() { echo "    $*"; return 1; }

# Seconds a run may take before it counts as hung: generous, it only turns
# a hang into a failure (as in tests/integration/lib.sh).
RUN_TIMEOUT=${RUN_TIMEOUT:-300}

# limited CMD...: CMD, killed after RUN_TIMEOUT seconds (status 124).
limited() { timeout -k 5 "$RUN_TIMEOUT" "$@"; }

. "$here/../common/wait.sh"

# watchdog PID: kill PID after RUN_TIMEOUT seconds; prints the watchdog's
# pid, to be killed once PID is done.
watchdog() {
	(
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "$RUN_TIMEOUT" &
		s=$!
		wait $s && kill -KILL "$1"
	) >/dev/null 2>&1 &
	echo $!
}

ready() { grep -q ready out 2>/dev/null; }
report_done() { [ -s rep.1 ] && grep -q '^end$' rep.1; }

# Value of header KEY in report FILE.
key() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# The "stack" line whose frame #0 names FUNC.
stack_line_of() {
	awk -v f="$2" '/^stack / { row = $0 } /^  #0 / && index($0, f) { print row; exit }' "$1"
}

# Field NAME of a stack line ("delta-bytes +1000" -> +1000).
field() { awk -v n="$2" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }' <<<"$1"; }

expect() {  # expect WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

t_phases() {
	limited env MALLOC_TRACE=log LD_PRELOAD=$LIB "$BUILD/phases" || return 1
	# Default names: PROGRAM.PID.N.memlog beside the log, never caught by
	# the glob a user types for the logs (issue 10).
	local pid r1 r2 r3
	pid=$(awk '$1 == "#v" { for (i = 3; i <= NF; i++) if ($i ~ /^pid=/) print substr($i, 5) }' log)
	r1=phases.$pid.1.memlog r2=phases.$pid.2.memlog r3=phases.$pid.3.memlog
	for r in $r1 $r2 $r3; do [ -s $r ] || fail "no report $r: $(ls)" || return 1; done
	[ ! -e phases.$pid.4.memlog ] || fail "a fourth report was written" || return 1
	[ "$(echo log*)" = log ] || fail "a log* glob catches more than the log: $(echo log*)" || return 1
	expect "r1 trigger" "$(key $r1 trigger)" mtrace &&
	expect "r3 trigger" "$(key $r3 trigger)" muntrace &&
	expect "r1 delta" "$(key $r1 delta-bytes)" +1000 &&
	expect "r1 live" "$(key $r1 live-blocks)" 10 &&
	expect "r1 grow_small" "$(field "$(stack_line_of $r1 grow_small)" delta-bytes)" +1000 &&
	expect "r2 delta" "$(key $r2 delta-bytes)" +4500 &&
	expect "r2 blocks" "$(key $r2 delta-blocks)" +0 &&
	expect "r2 grow_large" "$(field "$(stack_line_of $r2 grow_large)" delta-bytes)" +5000 &&
	expect "r2 grow_small" "$(field "$(stack_line_of $r2 grow_small)" delta-bytes)" -500 &&
	expect "r2 interval frees" "$(key $r2 interval-frees)" 5 &&
	expect "r3 delta" "$(key $r3 delta-bytes)" -5000 &&
	expect "r3 live" "$(key $r3 live-bytes)" 500 &&
	expect "r3 peak" "$(key $r3 peak-bytes)" 5500 &&
	expect "r3 grow_large" "$(field "$(stack_line_of $r3 grow_large)" delta-blocks)" -5 &&
	expect "r3 end" "$(tail -n 1 $r3)" end &&
	grep -q "^  [0-9]* bytes [0-9]* blocks main+" $r2 || fail "no by-frame line for main"
}

# mtrace-check prints a report again with file:line for every frame: the
# frame in grow_small() is the line of its malloc() call.
t_checker_reads_report() {
	limited env MALLOC_TRACE=log LD_PRELOAD=$LIB "$BUILD/phases" || return 1
	local want line
	want=$(grep -n 'small\[i\] = malloc' "$here/progs/phases.c" | cut -d: -f1)
	local r1
	r1=$(echo phases.*.1.memlog)
	"$top/mtrace-check/mtrace-check" "$r1" >out 2>err ||
		fail "status $?: $(cat err)" || return 1
	line=$(grep -m1 '^  #0 grow_small' out)
	[[ "$line" == *" at $here/progs/phases.c:$want" ]] ||
		fail "frame line: '$line', want phases.c:$want" || return 1
	# everything but the frame lines is copied as it is
	diff <(grep -v '^  ' "$r1") <(grep -v '^  ' out) >/dev/null ||
		fail "report text changed"
}

# A report that cannot be written is said once, on stderr; the program
# goes on unchanged (issue 12).
t_unwritable_report() {
	limited env MALLOC_TRACE=log MEMLEAK_CONFIG=report=/nonexistent/dir/r.%n LD_PRELOAD=$LIB \
		"$BUILD/phases" >out 2>err || fail "status $?: $(cat err)" || return 1
	[ "$(grep -c '^libmtrace: cannot write the report /nonexistent/dir/r.1: No such file or directory' err)" -eq 1 ] ||
		fail "stderr: $(cat err)" || return 1
	[ "$(grep -c '^libmtrace:' err)" -eq 1 ] || fail "more than one line: $(cat err)"
}

t_signal_idle() {
	mkfifo in
	MEMLEAK_CONFIG=mtraceinit,signal=USR2,report=rep.%n LD_PRELOAD=$LIB \
		"$BUILD/idle" <in >out 2>err &
	local pid=$! dog
	dog=$(watchdog $pid)
	exec 7>in                       # keeps the program blocked in read()
	wait_for ready || fail "the program never said 'ready'"
	kill -USR2 $pid
	wait_for report_done || fail "no whole report after SIGUSR2"
	local alive=0
	kill -0 $pid 2>/dev/null && alive=1
	exec 7>&-
	wait $pid
	local st=$?
	kill $dog 2>/dev/null
	expect "blocked while reporting" $alive 1 &&
	expect "exit status" $st 0 &&
	[ -s rep.1 ] || fail "no report after SIGUSR2" || return 1
	expect "trigger" "$(key rep.1 trigger)" signal &&
	expect "live bytes" "$(key rep.1 live-bytes)" 4242 &&
	expect "exit report" "$(key rep.2 trigger)" exit &&
	expect "stdout" "$(cat out)" "$(printf 'ready\nend of input')" &&
	expect "stderr" "$(cat err)" ""
}

# A report writes the log out: while the program still sits in read(),
# the log on disk already holds its allocation, for glibc's checker too.
t_log_written_at_report() {
	mkfifo in
	MALLOC_TRACE=log MEMLEAK_CONFIG=mtraceinit,signal=USR2,report=rep.%n \
		LD_PRELOAD=$LIB "$BUILD/idle" <in >out 2>err &
	local pid=$! dog
	dog=$(watchdog $pid)
	exec 7>in
	wait_for ready || fail "the program never said 'ready'"
	kill -USR2 $pid
	wait_for report_done || fail "no whole report after SIGUSR2"
	cp log log.during
	local alive=0
	kill -0 $pid 2>/dev/null && alive=1
	exec 7>&-
	wait $pid
	kill $dog 2>/dev/null
	expect "blocked while reporting" $alive 1 || return 1
	grep -qE '^@ [^ ]+ \+ 0x[0-9a-f]+ 0x1092( |$)' log.during ||
		fail "the 4242-byte block is not in the log yet: $(tail -n 3 log.during)" || return 1
	[ -x /usr/bin/mtrace ] || return 0   # libc-devtools absent: the grep above
	local leaks
	leaks=$(/usr/bin/mtrace "$BUILD/idle" log.during 2>&1 | grep -cE '^0x[0-9a-f]+ +0x1092  at ')
	expect "glibc's checker on the log during the run" "$leaks" 1
}

t_threads() {
	for run in 1 2 3; do
		rm -f rep.*
		limited env MEMLEAK_CONFIG=report=rep.%n LD_PRELOAD=$LIB "$BUILD/threads4" || return 1
		# 4 threads x 100 blocks of 16..64 bytes through one call site in
		# fill(); each thread frees 50 of the next one's.  (libc's own
		# per-thread blocks are live too: only fill()'s stack is checked.)
		local row
		row=$(stack_line_of rep.1 fill+)
		expect "run $run live blocks" "$(field "$row" live-blocks)" 200 &&
		expect "run $run live bytes" "$(field "$row" live-bytes)" $(( 50 * (16 + 32 + 48 + 64) )) &&
		expect "run $run delta" "$(field "$row" delta-bytes)" +$(( 50 * (16 + 32 + 48 + 64) )) || return 1
		[ "$(key rep.1 frees)" -ge 200 ] || fail "run $run: frees $(key rep.1 frees) < 200" || return 1
	done
}

t_api_preloaded() {
	limited env MEMLEAK_CONFIG=mtraceinit,report=rep.%n LD_PRELOAD=$LIB "$BUILD/api" steady >out 2>err
	expect "status" $? 0 &&
	expect "output" "$(cat out)" "$(printf 'active 1\ngrew 3000\nreport 0\nloop done')" &&
	expect "label" "$(awk '$1 == "label" { $1 = ""; print substr($0, 2) }' rep.1)" "api test" &&
	expect "trigger" "$(key rep.1 trigger)" api
}

t_api_leak_aborts() {
	limited env MEMLEAK_CONFIG=mtraceinit,report=rep.%n LD_PRELOAD=$LIB "$BUILD/api" leak >out 2>err
	local st=$?
	expect "status (SIGABRT)" $st 134 &&
	grep -q "MEMLEAK_ASSERT_NO_GROWTH failed at .*api.c:[0-9]*, iteration 6" err ||
		fail "no assertion message: $(head -c 300 err)" || return 1
	grep -q "^label MEMLEAK_ASSERT_NO_GROWTH failed" rep.2 || fail "no report from the assertion"
}

t_api_without_preload() {
	limited "$BUILD/api" leak >out 2>err
	expect "status" $? 0 &&
	expect "output" "$(cat out)" "$(printf 'active 0\ngrew 0\nreport -1\nloop done')"
}

t_api_compiled_out() {
	limited "$BUILD/api-disabled" leak >out 2>err
	expect "status" $? 0 &&
	expect "output" "$(cat out)" "$(printf 'active 0\ngrew 0\nreport -1\nloop done')"
}

# Live bytes per stack of report FILE, by the function of frame #0:
# "FUNCTION BYTES" lines.
live_by_function() {
	awk '/^stack / { b = $4 } /^  #0 / { sub(/\+.*/, "", $2); sum[$2] += b }
	     END { for (f in sum) print f, sum[f] }' "$1"
}

# The same from mtrace-check's estimated groups in FILE.
estimates_by_function() {
	awk '/^~[0-9]+ bytes in ~[0-9]+ blocks \(estimated from/ {
		b = substr($1, 2); getline; sum[$2] += b
	} END { for (f in sum) print f, sum[f] }' "$1"
}

# within_ten_percent TOTAL EXACT ESTIMATED: every function of the EXACT
# list ("FUNCTION BYTES" lines) holding at least 5% of TOTAL has an
# estimate within 10%, and there are at least 4 of them.
within_ten_percent() {
	awk -v total="$1" '
		NR == FNR { exact[$1] = $2; next }
		{ est[$1] = $2 }
		END {
			bad = 0
			for (f in exact) {
				if (exact[f] < total * 0.05)
					continue
				checked++
				err = (est[f] - exact[f]) / exact[f]
				if (err > 0.10 || err < -0.10) {
					printf "    %s: estimated %d, exact %d\n", f, est[f], exact[f]
					bad = 1
				}
			}
			if (checked < 4) {
				print "    only " checked " stacks above 5%"
				bad = 1
			}
			exit bad
		}' "$2" "$3"
}

# Sampling mode (sample=4k, a fixed seed: the same samples in every run):
# every stack that holds at least 5% of the live bytes of an exact run is
# estimated within 10%; the report says its figures are estimates, the
# log's header gives the rate, and the log records a small part of the
# blocks.  (With estimates not scaled by the blocks' weights, the small
# blocks' stack would come out at about 1% of its bytes.)
t_sampled_estimates() {
	limited env MEMLEAK_CONFIG=report=exact.%n LD_PRELOAD=$LIB "$BUILD/sampled" ||
		fail "exact run: status $?" || return 1
	limited env MEMLEAK_CONFIG=sample=4k,seed=42,report=est.%n MALLOC_TRACE=log \
		LD_PRELOAD=$LIB "$BUILD/sampled" || fail "sampled run: status $?" || return 1
	[ -z "$(key exact.1 estimated-from-samples-every)" ] ||
		fail "the exact report says it is estimated" || return 1
	expect "rate in the report" "$(key est.1 estimated-from-samples-every)" 4096 || return 1
	grep -q '^#v .* sample=4096' log || fail "no sample=4096 in the log's header" || return 1
	local allocs
	allocs=$(grep -c '^@ .* + ' log)
	[ "$allocs" -gt 1000 ] && [ "$allocs" -lt 60000 ] ||
		fail "$allocs blocks recorded of 738140" || return 1
	local total
	total=$(key exact.1 live-bytes)
	[ "$total" -gt 30000000 ] || fail "exact live bytes $total" || return 1
	within_ten_percent "$total" <(live_by_function exact.1) <(live_by_function est.1)
}

# mtrace-check on a sampled log whose blocks all leak: it says the log is
# sampled, lists no "Memory not freed" table (its blocks are samples, not
# leaks) and estimates every large stack within 10% of the exact live
# bytes; glibc's mtrace still reads the log.
t_sampled_checker() {
	limited env MEMLEAK_CONFIG=report=exact.%n LD_PRELOAD=$LIB "$BUILD/sampled" leak ||
		fail "exact run: status $?" || return 1
	limited env MEMLEAK_CONFIG=sample=4k,seed=42 MALLOC_TRACE=log LD_PRELOAD=$LIB \
		"$BUILD/sampled" leak || fail "sampled run: status $?" || return 1
	"$top/mtrace-check/mtrace-check" "$BUILD/sampled" log >out 2>err
	expect "status" $? 1 || return 1
	grep -q '^Sampled log: about one block per 4096 bytes' out ||
		fail "no sampled-log notice: $(head -3 out)" || return 1
	grep -q 'estimates, not exact leaks' out || fail "not called estimates" || return 1
	! grep -q '^Memory not freed:' out || fail "sampled blocks listed as leaks" || return 1
	within_ten_percent "$(key exact.1 live-bytes)" <(live_by_function exact.1) \
		<(estimates_by_function out) || return 1
	/usr/bin/mtrace "$BUILD/sampled" log >glibc.out 2>&1
	grep -q '^Memory not freed:' glibc.out || fail "glibc's mtrace: $(head -3 glibc.out)"
}

run() {
	local name=$1 dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-reports.$name.XXXXXX")
	if (cd "$dir" && "t_$name"); then
		echo "PASS: $name"
		passed=$((passed + 1))
		rm -rf "$dir"
	else
		echo "FAIL: $name"
		echo "    files kept in $dir"
		failed=$((failed + 1))
	fi
}

if [ ! -f "$LIB" ]; then
	echo "libmtrace.so is not built" >&2
	exit 2
fi
for t in phases checker_reads_report unwritable_report signal_idle log_written_at_report threads api_preloaded api_leak_aborts \
         api_without_preload api_compiled_out sampled_estimates sampled_checker; do
	run $t
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
