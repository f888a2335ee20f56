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
# Environment: LIBMTRACE (library path), INTEGRATION_BUILD (test programs).

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
. "$HERE/tests-verdicts.sh"

ALL_TESTS=(
	# tests-leaks.sh
	static static-O0 static-nopie strdup template template-mtraceinit
	cxx-demangle mtraceinit libc-internals setenv exit-return exit-exit
	exit-_exit exit-_Exit exit-quick exit-frees muntrace restart
	signal-stack signal-exit stacks odd-stacks async-unwind jit
	small-stack long-names long-paths dlopen dlopen-copy dlopen-deepbind reload
	depth config-unknown unwinders
	# tests-threads.sh
	threads threads-configs handoff manythreads thread-exit tls-dtors dlopen-tls dlopen-race
	bigheap late-start muntrace-threads exit-busy cancel
	# tests-process.sh
	concurrent stale-log percent-p fork-exit fork-_exit fork-O0
	fork-classic fork-threads fork-dlopen fork-dlopen-held daemon exec-fork exec-vfork
	exec-fork-closefds exec-vfork-closefds exec-system exec-self
	exec-threads exec-busy exec-fails fork-exec-twice fork-exec-timeout setuid
	# tests-io.sh
	stdout-log devfull fsize-limit unwritable reader-quits eintr
	eintr-open closefds fifo-no-reader
	# tests-compat.sh
	classic classic-nopie classic-more semantics real-python real-perl
	real-bash real-bash-fds real-gcc real-git real-sort
	# tests-signals.sh
	sigjump signal-alloc signal-prof signal-view die-abort die-segv die-term
	# tests-verdicts.sh
	verdict-global verdict-main-stack verdict-classes verdict-stale-frame
	verdict-threads verdict-specific verdict-dlopen-tls verdict-pool
	verdict-realloc verdict-fork verdict-thread-exit verdict-late-start
	verdict-cxx
	verdict-signal-storm verdict-blocked-thread verdict-lsan-default
	verdict-report verdict-reach-off
	verdict-suppressions verdict-under-tracers
)

passed=0 failed=0 skipped=0

# run_one NAME: run t_NAME in a subshell inside a fresh temporary directory.
run_one() {
	local name=$1 fn=t_${1//-/_} tmp out rc
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-it.XXXXXX")
	out=$(cd "$tmp" && T=$tmp "$fn" 2>&1)
	rc=$?
	case $rc in
	0)
		echo "PASS: $name"
		passed=$((passed + 1))
		grep '^note:' <<<"$out" | sed 's/^/    /'
		;;
	77)
		echo "SKIP: $name: $(tail -n1 <<<"$out")"
		skipped=$((skipped + 1))
		;;
	*)
		echo "FAIL: $name"
		failed=$((failed + 1))
		sed 's/^/    /' <<<"$out" | head -40
		;;
	esac
	rm -rf "$tmp"
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
	if [ ! -f "$LIB" ]; then
		skip_all "$LIB not built yet"
	elif [ ! -x "$MTRACE_PL" ]; then
		skip_all "$MTRACE_PL missing (Debian package libc-devtools)"
	else
		for name in "${selected[@]}"; do
			run_one "$name"
		done
	fi
	summary
}

main "$@"
