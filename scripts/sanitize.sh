#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# sanitize.sh - the sanitizer builds (make sanitize; CI runs it), each in a
# copy of the tree under .build/ (scripts/variant.sh):
#
#   ubsan  SAN=undefined DEBUG=1: libmtrace.so with UBSan and its own
#          assertions (MT_DEBUG), mtrace-check with UBSan; the integration
#          and report suites, i.e. every traced program, run under it.
#          Not ASan: a preloaded library cannot carry ASan.  ASan's runtime
#          must come first in the process and interposes malloc itself, so
#          it would shadow the very functions libmtrace.so interposes (and
#          the traced programs are not built with ASan anyway).  UBSan's
#          runtime interposes nothing, so the preload works as it ships.
#   asan   SAN=address,undefined: the unit suites (libmtrace's core units,
#          linked into the runner without the interposing shim), the
#          fastunwind suite, and the checker's unit suites and comparison
#          suite, i.e. mtrace-check, under ASan (with LeakSanitizer) and
#          UBSan.  Its extended-log tests trace with the ubsan build's
#          libmtrace.so.
#   tsan   SAN=thread: the unit suites of libmtrace and of the checker
#          (threadlog, livetab, cmap, stacktab and the checker's reader
#          thread are concurrent code).
#
# Every sanitizer report fails its run (-fno-sanitize-recover=all, and
# halt_on_error) and is also written to a file, so that one printed where
# no test looks (a traced program's stderr) still fails the build.
# Usage: scripts/sanitize.sh [ubsan|asan|tsan]...   (default: all three)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
base=${VARIANT_DIR:-$top/.build}
[ $# -gt 0 ] || set -- ubsan asan tsan

# Slower code, same tests: Check's timeouts scaled (RUN_TIMEOUT of the
# shell suites is already generous).
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}

reports=$base/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
common="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$top/scripts/lsan.supp:print_suppressions=0"

# SANITIZE_QUICK=1 (CI, which must stay under 15 minutes on a loaded
# 2-core machine): the integration tests that repeat a case many times or
# run big programs (valgrind among them) are left out of the UBSan run (they pass in make check
# with the release build), and the ASan build runs the checker's unit
# suites, not its comparisons with glibc's Perl checker, and the TSan build
# runs libmtrace's unit suites only.  Every source file of libmtrace is
# still exercised under UBSan and the lock-order asserts.
quick=${SANITIZE_QUICK:+1}
heavy="sigjump fork-dlopen real-bash-fds fork-threads bigheap verdict-signal-storm
zstd-exit-paths threads cxx-demangle async-unwind zstd-exec signal-prof zstd-threads
zstd-fork handoff odd-stacks real-gcc threads-configs reload real-git zstd-signals
dlopen-race unwinders exec-busy classic-more verdict-variants verdict-vs-valgrind"
heavy=$(echo $heavy)

# run_variant V: builds and tests variant V; its sanitizer reports go to
# $reports/V (each variant its own, so that variants may run at once).
run_variant() {
	local v=$1 start=$SECONDS st dir=$reports/$1
	mkdir -p "$dir"
	export UBSAN_OPTIONS="$common:log_path=$dir/report"
	export ASAN_OPTIONS="$common:log_path=$dir/report:detect_leaks=1:abort_on_error=0"
	export TSAN_OPTIONS="$common:log_path=$dir/report:second_deadlock_stack=1"
	case $v in
	ubsan)
		SKIP_TESTS=${quick:+$heavy} bash "$top/scripts/variant.sh" ubsan \
			"SAN=undefined DEBUG=1" integration reports
		;;
	asan)
		LIBMTRACE=$base/ubsan/libmtrace/libmtrace.so \
			bash "$top/scripts/variant.sh" asan "SAN=address,undefined" \
			unit fastunwind checker${quick:+:unit}
		;;
	tsan)
		if [ -n "$quick" ]; then
			bash "$top/scripts/variant.sh" tsan "SAN=thread" unit
		else
			bash "$top/scripts/variant.sh" tsan "SAN=thread" unit checker:unit
		fi
		;;
	*)
		echo "sanitize.sh: unknown build '$v' (ubsan, asan, tsan)" >&2
		return 2
		;;
	esac
	st=$?
	if compgen -G "$dir/report*" >/dev/null; then
		echo "== $v: sanitizer reports:"
		for f in "$dir"/report*; do
			echo "-- $f"
			head -40 "$f"
		done
		st=1
	fi
	echo "== $v: $([ $st -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
	return $st
}

# The TSan build shares nothing with the others, and its tests mostly wait
# (timeouts, threads parked): it runs beside them, its output shown after
# theirs (SANITIZE_JOBS=1: one after the other).  The ASan build's
# extended-log tests use the UBSan build's library, so those two run in
# the order given.
failed=()
aside=()
together=()
for v in "$@"; do
	if [ "$v" = tsan ] && [ $# -gt 1 ] && [ "${SANITIZE_JOBS:-2}" != 1 ]; then
		aside+=("$v")
	else
		together+=("$v")
	fi
done
aside_out=$reports/aside.out
if [ ${#aside[@]} -gt 0 ]; then
	( for v in "${aside[@]}"; do run_variant "$v" || echo "$v" >>"$reports/aside.failed"; done ) \
		>"$aside_out" 2>&1 &
	aside_pid=$!
fi
for v in "${together[@]}"; do
	run_variant "$v" || failed+=("$v")
done
if [ ${#aside[@]} -gt 0 ]; then
	wait "$aside_pid"
	cat "$aside_out"
	[ ! -s "$reports/aside.failed" ] || failed+=($(cat "$reports/aside.failed"))
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "sanitize: failed: ${failed[*]} (reports kept in $reports)"
	exit 1
fi
echo "sanitize: ${*} passed"
