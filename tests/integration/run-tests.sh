#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# run-tests.sh - integration tests of libmtrace.so: each test runs a small
# program (or a real tool) as a subprocess under LD_PRELOAD and checks the
# log with glibc's /usr/bin/mtrace.  The runner itself is never preloaded.
#
# Usage: run-tests.sh [--glibc] [TEST...]
#   --glibc  run against glibc's libc_malloc_debug.so instead (development
#            aid: the tests that need libmtrace features are skipped, and
#            the threads/fork tests are expected to fail)
# Environment: LIBMTRACE (library path), INTEGRATION_BUILD (test programs),
#   TEST_JOBS (tests run at once; default: number of CPUs + 2, each test waits
#   on its subprocesses much of the time), TEST_SEED (seed of the
#   randomized programs; default: a fresh one, printed first),
#   RUN_TIMEOUT (seconds a traced run may take; see lib.sh).
# A failing test's directory is kept and named in its report.
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(realpath -m "${INTEGRATION_BUILD:-$HERE/build}")
LIB=$(realpath -m "${LIBMTRACE:-$HERE/../../libmtrace/libmtrace.so}")
MODE=libmtrace
unset MALLOC_TRACE MEMLEAK_CONFIG LD_PRELOAD

. "$HERE/lib.sh"
. "$HERE/tests-leaks.sh"
. "$HERE/tests-threads.sh"
. "$HERE/tests-process.sh"
. "$HERE/tests-io.sh"
. "$HERE/tests-compat.sh"
. "$HERE/tests-signals.sh"
. "$HERE/tests-compress.sh"
. "$HERE/tests-verdicts.sh"
. "$HERE/tests-ci.sh"
. "$HERE/tests-diff.sh"
. "$HERE/tests-tree.sh"
. "$HERE/tests-children.sh"
. "$HERE/tests-growth.sh"
. "$HERE/tests-xblocks.sh"
. "$HERE/tests-resources.sh"
. "$HERE/tests-beyond.sh"
. "$HERE/tests-livelog.sh"

ALL_TESTS=(
	# tests-resources.sh
	resources-fds resources-nofds
	# tests-leaks.sh
	static static-O0 static-nopie strdup template template-mtraceinit
	cxx-demangle mtraceinit mtraceinit-no-reports libc-internals setenv exit-return exit-exit
	exit-_exit exit-_Exit exit-quick exit-frees muntrace restart
	signal-stack signal-exit stacks odd-stacks async-unwind jit
	small-stack long-names long-paths dlopen dlopen-copy dlopen-deepbind reload
	depth config-unknown unwinders
	# tests-threads.sh
	threads threads-configs handoff manythreads thread-exit tls-dtors dlopen-tls dlopen-race
	bigheap late-start late-start-grace muntrace-threads exit-busy cancel
	# tests-process.sh
	concurrent stale-log percent-p fork-exit fork-_exit fork-O0
	fork-classic fork-threads fork-dlopen fork-dlopen-held daemon exec-fork exec-vfork
	exec-fork-closefds exec-vfork-closefds exec-system exec-self
	exec-threads exec-busy exec-fails fork-exec-twice fork-exec-timeout setuid
	wrapper-logs
	# tests-io.sh
	stdout-log devfull fsize-limit unwritable reader-quits eintr
	eintr-open closefds fifo-no-reader
	# tests-compat.sh
	classic classic-nopie classic-more semantics real-python real-perl
	real-bash real-bash-fds real-gcc real-git real-sort
	# tests-signals.sh
	sigjump signal-alloc signal-prof signal-view die-abort die-segv die-term
	restart-sleep restart-usleep restart-nanosleep restart-clock-nanosleep
	restart-pause restart-sigsuspend restart-poll restart-poll-chk restart-ppoll restart-select
	restart-pselect restart-epoll-wait restart-epoll-pwait restart-sigtimedwait
	restart-sigwaitinfo restart-thrd-sleep restart-sem-timedwait
	restart-report-signal report-signal-exit
	# tests-compress.sh
	zstd-threads zstd-exit-paths zstd-signals zstd-fork zstd-daemon zstd-exec
	zstd-exec-fails zstd-exec-self zstd-no-thread zstd-option zstd-classic
	# tests-verdicts.sh
	verdict-global verdict-main-stack verdict-classes verdict-stale-frame
	verdict-threads verdict-specific verdict-dlopen-tls verdict-pool
	verdict-realloc verdict-fork verdict-thread-exit verdict-late-start
	verdict-cxx
	verdict-signal-storm verdict-blocked-thread verdict-lsan-default
	verdict-report verdict-reach-off
	verdict-suppressions verdict-under-tracers
	verdict-churn verdict-churn-threads verdict-last-remainder verdict-altstack
	verdict-killed
	verdict-exit-helper
	verdict-return-helper verdict-cycle-helper verdict-thread-pass
	verdict-exit-paths verdict-fork-exit verdict-vfork-kill verdict-dlclose
	verdict-variants verdict-vs-valgrind untraced-valgrind
	# tests-ci.sh
	ci-sarif ci-junit ci-codequality ci-fingerprints ci-baseline
	ci-suppressions ci-errors ci-noverdict-sarif ci-noverdict-junit
	ci-noverdict-codequality ci-noverdict-xml ci-noverdict-valgrind
	ci-noverdict-pprof ci-resources
	# tests-tree.sh
	tree-summary tree-classic
	# tests-children.sh
	children-untraced children-fork children-other-preload children-mtrace-run
	# tests-diff.sh
	diff-runs block-preview
	# tests-growth.sh
	growth-periodic growth-sleep growth-option growth-new-leaks growth-forks
	# tests-xblocks.sh
	xblocks-pools xblocks-mmap xblocks-mmap-ops xblocks-mmap-root
	xblocks-valgrind xblocks-html xblocks-threads
	# tests-beyond.sh
	beyond-all beyond-without beyond-html beyond-report
	# tests-livelog.sh
	livelog-report livelog-stacks livelog-reach-off livelog-fork livelog-exec livelog-die livelog-periodic livelog-refused livelog-offload
)

passed=0 failed=0 skipped=0
TEST_JOBS=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 2))}
[ "$TEST_JOBS" -ge 1 ] 2>/dev/null || TEST_JOBS=1
# One seed for the whole run: printed first, exported to the programs.
export TEST_SEED=${TEST_SEED:-$((RANDOM * 32768 + RANDOM))}

# run_one NAME: run t_NAME in a subshell inside a fresh temporary directory;
# print its report (one block) and exit with 0 (pass), 77 (skip) or 1.
run_one() {
	local name=$1 fn=t_${1//-/_} tmp out rc start secs
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-it.$name.XXXXXX")
	start=$EPOCHREALTIME
	out=$(cd "$tmp" && T=$tmp "$fn" 2>&1)
	rc=$?
	# The wall time, and the CPU time of what the test ran ("times", the
	# builtin, in this shell: its second line is the children's user and
	# system time).
	times >"$tmp.times"
	secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'END {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.1f s, %.1f s CPU", b - a, u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp.times")
	rm -f "$tmp.times"
	case $rc in
	0)
		echo "PASS: $name ($secs)"
		grep '^note:' <<<"$out" | sed 's/^/    /'
		rm -rf "$tmp"
		;;
	77)
		echo "SKIP: $name: $(tail -n1 <<<"$out")"
		rm -rf "$tmp"
		;;
	*)
		echo "FAIL: $name ($secs)"
		sed 's/^/    /' <<<"$out" | head -40
		echo "    files kept in $tmp"
		echo "    again: TEST_SEED=$TEST_SEED $HERE/run-tests.sh $name"
		rc=1
		;;
	esac
	return $rc
}

# run_all NAME...: TEST_JOBS tests at a time; each report is printed whole as
# its test ends, and counted.
run_all() {
	local res name i n=$# done_=0 rc
	local -a names=("$@")
	res=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-it-results.XXXXXX")
	for ((i = 0; i < n || done_ < n;)); do
		if ((i < n)) && [ "$(jobs -pr | wc -l)" -lt "$TEST_JOBS" ]; then
			(run_one "${names[i]}" >"$res/$i.out" 2>&1; echo $? >"$res/$i.rc.tmp"
			 mv "$res/$i.rc.tmp" "$res/$i.rc") &
			i=$((i + 1))
			continue
		fi
		wait -n 2>/dev/null || true
		for rc in "$res"/*.rc; do
			[ -e "$rc" ] || continue
			cat "${rc%.rc}.out"
			case $(cat "$rc") in
			0) passed=$((passed + 1)) ;;
			77) skipped=$((skipped + 1)) ;;
			*) failed=$((failed + 1)) ;;
			esac
			rm -f "$rc" "${rc%.rc}.out"
			done_=$((done_ + 1))
		done
	done
	wait
	rm -rf "$res"
}

# skip_all REASON: the environment cannot run the suite.
skip_all() {
	local name
	for name in "${selected[@]}"; do
		echo "SKIP: $name: $1"
		skipped=$((skipped + 1))
	done
}

summary() {
	local line="$passed passed, $failed failed"
	[ "$skipped" -eq 0 ] || line="$line, $skipped skipped"
	echo "$line"
	[ "$failed" -eq 0 ]
}

main() {
	local name
	if [ "${1:-}" = --glibc ]; then
		MODE=glibc
		LIB=$GLIBC_TRACER
		shift
	fi
	selected=("$@")
	[ ${#selected[@]} -gt 0 ] || selected=("${ALL_TESTS[@]}")
	# SKIP_TESTS="NAME ...": leave these out (a quick run: CI's sanitizer build).
	if [ -n "${SKIP_TESTS:-}" ]; then
		local -a kept=()
		for name in "${selected[@]}"; do
			[[ " $SKIP_TESTS " == *" $name "* ]] || kept+=("$name")
		done
		echo "integration: $((${#selected[@]} - ${#kept[@]})) tests left out (SKIP_TESTS)"
		selected=("${kept[@]}")
	fi
	for name in "${selected[@]}"; do
		declare -F "t_${name//-/_}" >/dev/null || { echo "run-tests.sh: no test '$name'" >&2; exit 2; }
	done
	echo "integration: ${#selected[@]} tests, $TEST_JOBS at a time, TEST_SEED=$TEST_SEED"
	if [ ! -f "$LIB" ]; then
		skip_all "$LIB not built yet"
	elif [ ! -x "$MTRACE_PL" ]; then
		skip_all "$MTRACE_PL missing (Debian package libc-devtools)"
	else
		run_all "${selected[@]}"
	fi
	summary
}

main "$@"
