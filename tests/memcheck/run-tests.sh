#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# mtrace-run and mtrace-check's valgrind-shaped reports (issue 28), against
# the real consumers: ctest -T memcheck on a CMake project, valgrind's own
# text and XML for the same programs, valgrind's suppression files.
# Usage: run-tests.sh [NAME...]  (default: all)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
RUN=$top/mtrace-run/mtrace-run
CHECK=$top/mtrace-check/mtrace-check
BUILD=$here/build
passed=0 failed=0

fail() { echo "    $*"; return 1; }

# Seconds a run may take before it counts as hung (only turns a hang into
# a failure, as in tests/integration/lib.sh).
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
limited() { timeout -k 5 "$RUN_TIMEOUT" "$@"; }

expect() { # expect WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# The loss record and LEAK SUMMARY lines of a valgrind-shaped text, without
# the ==PID== prefix and without the stacks (valgrind's first frame is its
# own malloc; the addresses differ).
shape() {
	sed -n 's/^==[0-9]*== //p' "$1" |
		grep -E 'in loss record [0-9,]+ of|^ *(definitely|indirectly|possibly) lost:|^ *still reachable:'
}

# ctest -T memcheck on the CMake project, configured with MEMORYCHECK_COMMAND
# set to valgrind and to mtrace-run: the same defects, per test and kind.
defects() { # defects BUILD_DIR: "TEST TYPE COUNT" lines of DynamicAnalysis.xml
	python3 - "$1"/Testing/*/DynamicAnalysis.xml <<'EOF'
import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("Test"):
    name = t.findtext("Name")
    for d in t.iter("Defect"):
        print(name, d.get("type") or d.get("Type"), d.text)
EOF
}

memcheck_with() { # memcheck_with DIR CMAKE_ARGS...: configure, build, ctest
	local dir=$1
	shift
	cmake -S "$here/cmake" -B "$dir" "$@" >"$dir.cmake.out" 2>&1 &&
		cmake --build "$dir" >>"$dir.cmake.out" 2>&1 ||
		fail "cmake: $(tail -5 "$dir.cmake.out")" || return 1
	local start=$EPOCHREALTIME
	(cd "$dir" && limited ctest -T memcheck >ctest.out 2>&1)
	local end=$EPOCHREALTIME
	echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >"$dir.seconds"
}

t_ctest_memcheck() {
	command -v cmake >/dev/null && command -v ctest >/dev/null &&
		command -v valgrind >/dev/null || fail "cmake, ctest or valgrind missing" || return 1
	memcheck_with vg -DMEMORYCHECK_COMMAND="$(command -v valgrind)" || return 1
	memcheck_with mt -DMEMORYCHECK_COMMAND="$RUN" -DMEMORYCHECK_TYPE=Valgrind || return 1
	defects vg >vg.defects && defects mt >mt.defects || fail "no DynamicAnalysis.xml" || return 1
	grep -q '^leaky Memory Leak [1-9]' vg.defects ||
		fail "valgrind found no leak: $(cat vg.defects)" || return 1
	diff vg.defects mt.defects >/dev/null ||
		fail "defects differ: valgrind $(cat vg.defects | tr '\n' ';') mtrace-run $(cat mt.defects | tr '\n' ';')" || return 1
	! grep -q '^tidy ' mt.defects || fail "the clean test has defects" || return 1
	grep -q 'Defects: ' mt/ctest.out || fail "ctest counted no defects: $(tail -5 mt/ctest.out)" || return 1
	# Speed is reported, never asserted (tests/README.md).
	echo "    ctest -T memcheck: valgrind $(cat vg.seconds) s, mtrace-run $(cat mt.seconds) s"
}

# valgrind --xml=yes and mtrace-run --xml=yes on the same program: both
# memcheck's protocol 4, the same leak kinds and byte counts per record;
# mtrace-check --xml on the log of the same run gives them too.
t_xml_like_valgrind() {
	limited valgrind -q --leak-check=full --show-reachable=yes --xml=yes \
		--xml-file=vg.xml "$BUILD/verdicts" classes >/dev/null 2>&1
	limited "$RUN" -q --leak-check=full --show-reachable=yes --xml=yes \
		--xml-file=mt.xml --mtrace-dir=logs "$BUILD/verdicts" classes >out 2>err ||
		fail "mtrace-run: status $?: $(head -3 err)" || return 1
	[ ! -s err ] || fail "mtrace-run -q --xml=yes wrote text: $(head -3 err)" || return 1
	if command -v xmllint >/dev/null; then
		xmllint --noout mt.xml || fail "xmllint refuses mt.xml" || return 1
	fi
	"$here/vgxml.py" vg.xml >vg.rows && "$here/vgxml.py" mt.xml >mt.rows || return 1
	[ "$(wc -l <vg.rows)" -ge 5 ] || fail "valgrind's XML: $(cat vg.rows)" || return 1
	diff vg.rows mt.rows >/dev/null ||
		fail "records differ: valgrind $(tr '\n' ';' <vg.rows) mtrace-run $(tr '\n' ';' <mt.rows)" || return 1
	"$CHECK" --xml check.xml --show-reachable logs/trace.* >/dev/null
	"$here/vgxml.py" check.xml >check.rows || return 1
	diff vg.rows check.rows >/dev/null || fail "mtrace-check --xml: $(tr '\n' ';' <check.rows)" || return 1
	# the shapes whose verdicts depend on what memory is live at exit
	local shape
	for shape in cycle-helper _exit; do
		limited valgrind -q --leak-check=full --show-reachable=yes --xml=yes \
			--xml-file=vg.$shape.xml "$BUILD/verdict_shapes" $shape >/dev/null 2>&1
		limited "$RUN" -q --leak-check=full --show-reachable=yes --xml=yes \
			--xml-file=mt.$shape.xml "$BUILD/verdict_shapes" $shape >/dev/null 2>&1
		"$here/vgxml.py" vg.$shape.xml >vg.rows && "$here/vgxml.py" mt.$shape.xml >mt.rows || return 1
		[ -s vg.rows ] || fail "$shape: valgrind's XML has no leak" || return 1
		diff vg.rows mt.rows >/dev/null ||
			fail "$shape: valgrind $(tr '\n' ';' <vg.rows) mtrace-run $(tr '\n' ';' <mt.rows)" || return 1
	done
}

# The text: the same loss records (sizes, kinds, numbers) and LEAK SUMMARY
# as valgrind's, in valgrind's order.
t_text_like_valgrind() {
	limited valgrind --leak-check=full --show-reachable=yes "$BUILD/verdicts" classes \
		>/dev/null 2>vg.txt
	limited "$RUN" --leak-check=full --show-reachable=yes "$BUILD/verdicts" classes \
		>/dev/null 2>mt.txt || fail "mtrace-run: status $?" || return 1
	shape vg.txt >vg.shape
	shape mt.txt >mt.shape
	grep -q 'definitely lost in loss record' vg.shape || fail "valgrind: $(head -3 vg.txt)" || return 1
	diff vg.shape mt.shape >shape.diff || fail "differs from valgrind: $(head -8 shape.diff)" || return 1
	grep -Eq '^==[0-9]+==    at 0x[0-9A-F]+: alloc \(verdicts.c:[0-9]+\)$' mt.txt ||
		fail "no 'at' frame line" || return 1
	grep -Eq '^==[0-9]+==    by 0x[0-9A-F]+: main \(verdicts.c:[0-9]+\)$' mt.txt ||
		fail "no 'by' frame line" || return 1
	grep -q 'ERROR SUMMARY: 4 errors' mt.txt || fail "$(grep 'ERROR SUMMARY' mt.txt)" || return 1
	# -q: the loss records only, as valgrind -q prints them
	limited "$RUN" -q --leak-check=full "$BUILD/verdicts" classes 2>q.txt >/dev/null
	! grep -q 'SUMMARY' q.txt || fail "-q printed a summary" || return 1
	expect "-q records" "$(grep -c 'in loss record' q.txt)" 4
}

# A suppression file valgrind generated silences the same leaks; so does
# mtrace-run's own --gen-suppressions output; a malformed file is refused.
t_valgrind_suppressions() {
	limited valgrind -q --leak-check=full --gen-suppressions=all "$BUILD/tree" leaf \
		>/dev/null 2>vg.txt
	grep -v '^==' vg.txt >vg.supp
	grep -q 'Memcheck:Leak' vg.supp || fail "no suppression from valgrind: $(head -5 vg.txt)" || return 1
	limited "$RUN" --leak-check=full --error-exitcode=9 "$BUILD/tree" leaf 2>plain.txt
	expect "status without suppressions" $? 9 || return 1
	limited "$RUN" --leak-check=full --error-exitcode=9 --suppressions=vg.supp \
		"$BUILD/tree" leaf 2>supp.txt
	expect "status with valgrind's suppressions" $? 0 || return 1
	grep -q 'suppressed: 333 bytes in 1 blocks' supp.txt ||
		fail "not suppressed: $(grep -E 'lost|suppressed' supp.txt)" || return 1
	# match-leak-kinds: a reachable-only entry leaves a definite leak alone
	sed 's/match-leak-kinds: definite/match-leak-kinds: reachable/' vg.supp >reach.supp
	limited "$RUN" --leak-check=full --error-exitcode=9 --suppressions=reach.supp \
		"$BUILD/tree" leaf 2>/dev/null
	expect "status with a reachable-only suppression" $? 9 || return 1
	limited "$RUN" -q --leak-check=full --gen-suppressions=all "$BUILD/tree" leaf 2>own.txt
	grep -v '^==' own.txt >own.supp
	grep -q '^   fun:leak$' own.supp || fail "--gen-suppressions: $(cat own.txt)" || return 1
	limited "$RUN" --leak-check=full --error-exitcode=9 --suppressions=own.supp \
		"$BUILD/tree" leaf 2>/dev/null
	expect "status with its own suppressions" $? 0 || return 1
	printf '{\n   bad\n   Memcheck:Leak\n   nonsense\n}\n' >bad.supp
	"$CHECK" --suppressions bad.supp /dev/null >/dev/null 2>bad.err
	expect "malformed file status" $? 2 || return 1
	grep -q 'bad.supp:4' bad.err || fail "no FILE:LINE: $(cat bad.err)"
}

# A process tree: each process under its own pid, then their summary;
# --log-file with %p: a file per process; --trace-children=no: not the
# processes started by exec.
t_process_tree() {
	mkdir tmp
	TMPDIR=$PWD/tmp limited "$RUN" --leak-check=full "$BUILD/tree" fork 2>tree.txt ||
		fail "status $?" || return 1
	expect "run directory left" "$(ls -A tmp)" "" || return 1
	expect "pids" "$(grep -o '^==[0-9]*==' tree.txt | sort -u | wc -l)" 2 || return 1
	grep -q '111 bytes in 1 blocks are definitely lost' tree.txt || fail "child's leak missing" || return 1
	grep -q '222 bytes in 1 blocks are definitely lost' tree.txt || fail "parent's leak missing" || return 1
	grep -q 'LEAK SUMMARY of 2 processes' tree.txt || fail "no summary of the tree" || return 1
	grep -A1 'LEAK SUMMARY of 2' tree.txt | grep -q 'definitely lost: 333 bytes in 2 blocks' ||
		fail "tree summary: $(grep -A1 'LEAK SUMMARY of' tree.txt)" || return 1
	limited "$RUN" --leak-check=full --log-file=vg.%p.log "$BUILD/tree" fork 2>err
	expect "per-process files" "$(ls vg.*.log | wc -l)" 2 || return 1
	for f in vg.*.log; do
		expect "$f pid" "$(grep -o '^==[0-9]*==' "$f" | sort -u)" "==$(echo "$f" | cut -d. -f2)==" || return 1
	done
	limited "$RUN" -q --leak-check=full --xml=yes --xml-file=x.%p.xml "$BUILD/tree" fork 2>/dev/null
	expect "per-process XML files" "$(ls x.*.xml | wc -l)" 2 || return 1
	for f in x.*.xml; do "$here/vgxml.py" "$f"; done | sort >rows || return 1
	expect "per-process XML" "$(tr '\n' ';' <rows)" "Leak_DefinitelyLost 111 1;Leak_DefinitelyLost 222 1;" || return 1
	limited "$RUN" -q --leak-check=full --xml=yes --xml-file=tree.xml "$BUILD/tree" fork 2>/dev/null
	"$here/vgxml.py" tree.xml >rows || return 1
	expect "one XML for the tree" "$(tr '\n' ';' <rows)" "Leak_DefinitelyLost 111 1;Leak_DefinitelyLost 222 1;" || return 1
	limited "$RUN" -q --leak-check=full "$BUILD/tree" exec 2>exec.txt
	grep -q '333 bytes' exec.txt || fail "exec'd child not reported" || return 1
	limited "$RUN" -q --leak-check=full --trace-children=no "$BUILD/tree" exec 2>noexec.txt
	grep -q '222 bytes' noexec.txt || fail "parent not reported" || return 1
	! grep -q '333 bytes' noexec.txt || fail "--trace-children=no reported the exec'd child"
}

# Exit status: the program's, --error-exitcode's on leaks, the program's
# signal; bad command lines and a missing program as valgrind has them.
t_exit_status() {
	limited "$RUN" -q "$BUILD/tree" status 5 2>/dev/null
	expect "program status" $? 5 || return 1
	limited "$RUN" -q --leak-check=full --error-exitcode=42 "$BUILD/tree" status 0 2>/dev/null
	expect "error exit code" $? 42 || return 1
	limited "$RUN" -q --leak-check=summary --error-exitcode=42 "$BUILD/tree" status 0 2>/dev/null
	expect "summary: no errors" $? 0 || return 1
	limited "$RUN" -q --leak-check=full --error-exitcode=42 --errors-for-leak-kinds=indirect \
		"$BUILD/tree" status 0 2>/dev/null
	expect "errors-for-leak-kinds" $? 0 || return 1
	limited "$RUN" -q "$BUILD/tree" signal 2>/dev/null
	expect "signal" $? $((128 + 15)) || return 1
	limited "$RUN" -q ./no-such-program 2>err
	expect "missing program" $? 127 || return 1
	"$RUN" --no-such-option "$BUILD/tree" 2>err
	expect "unknown option" $? 1 || return 1
	grep -q 'no-such-option' err || fail "message: $(cat err)" || return 1
	"$RUN" --xml=yes "$BUILD/tree" 2>err
	expect "--xml=yes alone" $? 1 || return 1
	"$RUN" --tool=helgrind "$BUILD/tree" 2>err
	expect "--tool=helgrind" $? 1 || return 1
	limited "$RUN" -q --tool=memcheck --track-origins=yes -v --num-callers=50 "$BUILD/tree" status 3 2>/dev/null
	expect "ignored options" $? 3 || return 1
	# the program's own output is untouched, the report on stderr
	expect "stdout" "$(limited "$RUN" --leak-check=full sh -c 'echo out' 2>/dev/null)" out
}

# Where the report goes: --log-file's %q{VAR} and %%, --log-fd, --xml-fd;
# the program's own standard error stays its own.
t_destinations() {
	MTR_NAME=abc limited "$RUN" --leak-check=full --log-file='r.%q{MTR_NAME}.%%.log' \
		"$BUILD/tree" leaf 2>err.txt || fail "status $?" || return 1
	grep -q '333 bytes in 1 blocks are definitely lost' r.abc.%.log ||
		fail "not in r.abc.%.log: $(ls)" || return 1
	[ ! -s err.txt ] || fail "stderr: $(head -3 err.txt)" || return 1
	limited "$RUN" --leak-check=full --log-fd=3 "$BUILD/tree" leaf 3>fd3.txt 2>/dev/null
	grep -q '333 bytes in 1 blocks are definitely lost' fd3.txt || fail "--log-fd: $(cat fd3.txt)" || return 1
	limited "$RUN" -q --leak-check=full --xml=yes --xml-fd=4 "$BUILD/tree" leaf 4>fd4.xml 2>/dev/null
	"$here/vgxml.py" fd4.xml >rows || return 1
	expect "--xml-fd" "$(cat rows)" "Leak_DefinitelyLost 333 1" || return 1
	limited "$RUN" --leak-check=full sh -c 'echo own >&2' 2>own.txt
	grep -q '^own$' own.txt || fail "the program's stderr: $(cat own.txt)"
}

# mtrace-check's options of the valgrind shapes, given wrong: a message and
# status 2, never a crash.
t_bad_input() {
	local args
	for args in "--valgrind=bogus" "--num-callers=0" "--num-callers=x" "--xml" \
		"--xml=" "--show-leak-kinds=sometimes" "--valgrind --json" "--valgrind --folded"; do
		# shellcheck disable=SC2086
		"$CHECK" $args /dev/null >out 2>err
		expect "$args: status" $? 2 || return 1
		[ -s err ] || fail "$args: no message" || return 1
	done
	"$CHECK" --xml /nonexistent/dir/x.xml /dev/null >out 2>err
	expect "unwritable XML file: status" $? 2 || return 1
	grep -q 'x.xml: cannot write' err || fail "$(cat err)" || return 1
	[ ! -s out ] || fail "checked before the XML file was refused: $(head -2 out)"
}

# A log without reachability verdicts (MEMLEAK_CONFIG=reach=0): every
# block still allocated is definitely lost, as mtrace-check's report says.
t_without_verdicts() {
	limited "$RUN" --leak-check=full --error-exitcode=9 --mtrace-config=reach=0 \
		"$BUILD/tree" leaf 2>out.txt
	expect "status" $? 9 || return 1
	grep -q '333 bytes in 1 blocks are definitely lost in loss record 1 of 1' out.txt ||
		fail "$(cat out.txt)" || return 1
	grep -q 'no reachability verdicts' out.txt || fail "not told"
}

# Installed (make install): mtrace-run finds ../lib/libmtrace.so and
# mtrace-check beside itself.
t_installed() {
	make -s -C "$top" install DESTDIR="$PWD/root" PREFIX=/usr >install.out 2>&1 ||
		fail "make install: $(tail -3 install.out)" || return 1
	[ -f root/usr/share/man/man1/mtrace-run.1 ] || fail "no man page installed" || return 1
	limited root/usr/bin/mtrace-run -q --leak-check=full "$BUILD/tree" leaf 2>out.txt ||
		fail "status $?: $(head -3 out.txt)" || return 1
	grep -q '333 bytes in 1 blocks are definitely lost' out.txt || fail "$(head -3 out.txt)"
}

run() {
	local name=$1 dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-memcheck.$name.XXXXXX")
	if (cd "$dir" && "t_$name"); then
		echo "PASS: $name"
		rm -rf "$dir"
	else
		echo "FAIL: $name"
		echo "    files kept in $dir"
	fi
}

for f in "$RUN" "$CHECK" "$top/libmtrace/libmtrace.so"; do
	[ -e "$f" ] || { echo "$f is not built" >&2; exit 2; }
done
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(ctest_memcheck xml_like_valgrind text_like_valgrind
	valgrind_suppressions process_tree exit_status destinations bad_input
	without_verdicts installed)
# The tests mostly wait on subprocesses: TEST_JOBS of them at once (as in
# the integration suite), each one's output shown whole, in order.
out=$(mktemp -d "${TMPDIR:-/tmp}/mtrace-memcheck.out.XXXXXX")
jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 2) + 2))}
for t in "${tests[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	run "$t" >"$out/$t" 2>&1 &
done
wait
for t in "${tests[@]}"; do
	cat "$out/$t"
	if grep -q "^PASS: $t\$" "$out/$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
rm -rf "$out"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
