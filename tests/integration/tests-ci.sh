# SPDX-License-Identifier: GPL-3.0-or-later
# tests-ci.sh - mtrace-check's outputs for CI (issue 28): the SARIF file
# validated against the SARIF 2.1.0 schema with each leak located at its
# source line, JUnit XML and GitLab Code Quality read back by real
# parsers, fingerprints that survive ASLR and a rebuild that moves every
# address and line, the baseline ratchet, and generated suppressions that
# silence exactly the leaks they were generated from.  progs/ci_leaks.c
# has the leaks; ci-check.py reads the files.  Sourced by run-tests.sh.

MTRACE_CHECK=${MTRACE_CHECK:-$HERE/../../mtrace-check/mtrace-check}
CI_CHECK="python3 $HERE/ci-check.py"

# ci_run LOG MODE [PROGRAM]: a traced run of progs/ci_leaks.c.
ci_run() {
	local log=$1 mode=$2 prog=${3:-$BUILD/ci_leaks}
	traced "$log" "$prog" "$mode" >out 2>err ||
		{ fail "ci_leaks $mode: status $?: $(head -3 err)"; return 1; }
	grep -q '^#C scan ' "$log" || { fail "$log: no scan record"; return 1; }
}

# ci_check WANT_STATUS ARGS...: mtrace-check ARGS from $HERE (so that
# paths below it are written relative to it, as in a checkout), its
# output in ci.out and ci.err.
ci_check() {
	local want=$1 st
	shift
	(cd "$HERE" && "$MTRACE_CHECK" "$@") >"$T/ci.out" 2>"$T/ci.err"
	st=$?
	[ $st -eq "$want" ] ||
		{ fail "mtrace-check $*: status $st, want $want: $(head -5 "$T/ci.err")"; return 1; }
}

need_jsonschema() {
	python3 -c 'import jsonschema' 2>/dev/null ||
		skip "python3-jsonschema missing (scripts/install-deps.sh installs it)"
}

t_ci_sarif() {
	need_libmtrace || return
	need_jsonschema || return
	ci_run new.log new || return 1
	ci_check 1 --sarif "$T/out.sarif" "$BUILD/ci_leaks" "$T/new.log" || return 1
	# Four definitely lost records, two indirectly lost nodes.
	$CI_CHECK sarif out.sarif "$HERE/schemas/sarif-schema-2.1.0.json" "$HERE" 6 ||
		return 1
	# The results' fingerprints are the text report's.
	diff <(grep -o '"mtraceLossRecord/v1":"[^"]*"' out.sarif | cut -d'"' -f4 | sort) \
		<(awk '/^  fingerprint / { print $2 }' ci.out | sort) ||
		{ fail "SARIF and text fingerprints differ"; return 1; }
}

t_ci_junit() {
	need_libmtrace || return
	local m
	for m in old new clean; do ci_run $m.log $m || return 1; done
	ci_check 1 --junit "$T/out.xml" "$BUILD/ci_leaks" "$T/old.log" "$T/new.log" \
		"$T/clean.log" || return 1
	# A suite per log; a test per leak loss record, failing when it
	# fails the run (definitely lost); the clean log's one passing test.
	$CI_CHECK junit out.xml "$T/old.log:5:3:0" "$T/new.log:6:4:0" "$T/clean.log:1:0:0" ||
		return 1
	# With the old run as baseline: its records skipped, one failure.
	ci_check 1 --write-baseline "$T/base" "$BUILD/ci_leaks" "$T/old.log" || return 1
	ci_check 1 --baseline "$T/base" --junit "$T/out2.xml" "$BUILD/ci_leaks" \
		"$T/new.log" || return 1
	$CI_CHECK junit out2.xml "$T/new.log:6:1:5" || return 1
	grep -q 'name="definitely lost in leak_session \[' out2.xml ||
		{ fail "no test case named for leak_session"; return 1; }
}

t_ci_codequality() {
	need_libmtrace || return
	ci_run new.log new || return 1
	ci_check 1 --codequality "$T/out.json" "$BUILD/ci_leaks" "$T/new.log" || return 1
	$CI_CHECK codequality out.json "$HERE" 6
}

# The same leaks, the same fingerprints: two runs of a PIE (another load
# address each time), and a rebuild from another directory with an
# unrelated function and lines added above the leaks.
t_ci_fingerprints() {
	need_libmtrace || return
	local f prog
	ci_run a.log old || return 1
	ci_run b.log old || return 1
	ci_run c.log old "$BUILD/ci_leaks_shifted" || return 1
	for f in a b c; do
		prog=$BUILD/ci_leaks
		[ $f = c ] && prog=$BUILD/ci_leaks_shifted
		ci_check 1 --json "$prog" "$T/$f.log" || return 1
		$CI_CHECK records ci.out | awk '$2 != "still-reachable" { print $1, $2, $3 }' |
			sort >$f.fp
		ci_check 1 "$prog" "$T/$f.log" || return 1
		# The text report shows the same fingerprints as the JSON.
		diff <(awk '/^  fingerprint / { print $2 }' ci.out | sort) <(cut -d' ' -f1 $f.fp) ||
			{ fail "$f: text and JSON fingerprints differ"; return 1; }
		grep -o '#0 leak_config at [^ ]*' ci.out | sed 's|.*/||' >$f.where
	done
	[ "$(wc -l <a.fp)" -eq 5 ] && [ "$(cut -d' ' -f1 a.fp | sort -u | wc -l)" -eq 5 ] ||
		{ fail "want 5 loss records with 5 fingerprints:"; cat a.fp; return 1; }
	diff a.fp b.fp || { fail "two runs, other fingerprints"; return 1; }
	diff a.fp c.fp || { fail "a rebuild, other fingerprints"; return 1; }
	# The runs really differ where fingerprints must not look.
	[ "$(grep '^#m 0 ' a.log | cut -d' ' -f3)" != "$(grep '^#m 0 ' b.log | cut -d' ' -f3)" ] ||
		note "the two runs loaded the program at the same address (ASLR off?)"
	! cmp -s a.where c.where || { fail "the rebuild did not move the leak's line"; return 1; }
}

t_ci_baseline() {
	need_libmtrace || return
	ci_run old.log old || return 1
	ci_run new.log new || return 1
	ci_check 1 --write-baseline "$T/base" "$BUILD/ci_leaks" "$T/old.log" || return 1
	[ "$(grep -c '^[0-9a-f]\{16\}\(\.[0-9]*\)\?  # ' base)" -eq 5 ] ||
		{ fail "baseline: want 5 fingerprint lines:"; cat base; return 1; }
	# Old leaks alone: they fail without the baseline, pass with it.
	ci_check 1 "$BUILD/ci_leaks" "$T/old.log" || return 1
	ci_check 0 --baseline "$T/base" "$BUILD/ci_leaks" "$T/old.log" || return 1
	grep -q '^BASELINE .*: 5 loss records in it, 0 new$' ci.out ||
		{ fail "no baseline summary"; tail -5 ci.out; return 1; }
	# One new leak: fails, and is named.
	ci_check 1 --baseline "$T/base" "$BUILD/ci_leaks" "$T/new.log" || return 1
	grep -q '^BASELINE .*: 5 loss records in it, 1 new$' ci.out &&
		[ "$(grep -c '^  new: ' ci.out)" -eq 1 ] &&
		grep -q '^  new: [0-9a-f]\{16\} definitely lost, 1301 bytes in loss record [0-9]*, leak_session (.*ci_leaks.c:[0-9]*)$' ci.out ||
		{ fail "the new leak is not named:"; tail -5 ci.out; return 1; }
	grep -q '(new: not in the baseline)' ci.out || { fail "no record marked new"; return 1; }
	ci_check 1 --json --baseline "$T/base" "$BUILD/ci_leaks" "$T/new.log" || return 1
	[ "$($CI_CHECK records ci.out | awk '$2 != "still-reachable" { print $3, $5 }' | sort | paste -sd' ')" = \
		"1201 True 1202 True 1203 True 1204 True 1204 True 1301 False" ] ||
		{ fail "JSON baseline flags:"; $CI_CHECK records ci.out; return 1; }
	# --fail-on=none still passes; a broken baseline is an input error.
	printf '%s\n' 0123456789abcdef 'not a fingerprint' >bad
	ci_check 2 --baseline "$T/bad" "$BUILD/ci_leaks" "$T/new.log" || return 1
	grep -q "bad:2: not a fingerprint" ci.err || { fail "bad line not named: $(cat ci.err)"; return 1; }
	ci_check 2 --baseline "$T/missing" "$BUILD/ci_leaks" "$T/new.log" || return 1
}

t_ci_suppressions() {
	need_libmtrace || return
	ci_run old.log old || return 1
	ci_run new.log new || return 1
	ci_check 1 --gen-suppressions="$T/supp" "$BUILD/ci_leaks" "$T/old.log" || return 1
	# One narrow line per leak: a function, anchored; never a file or a
	# library.  The list head and its nodes share leak_list: one line.
	[ "$(grep -v '^#' supp | sort | paste -sd' ')" = \
		"leak:^leak_cache$ leak:^leak_config$ leak:^leak_list$" ] ||
		{ fail "generated:"; cat supp; return 1; }
	# The same lines under the text report without a file.
	ci_check 1 --gen-suppressions "$BUILD/ci_leaks" "$T/old.log" || return 1
	diff <(grep -v '^#' supp) <(sed -n '/^Suppressions for the leaks above/,$p' ci.out | grep '^leak:') ||
		{ fail "printed suppressions differ from the file's"; return 1; }
	ci_check 2 --json --gen-suppressions "$BUILD/ci_leaks" "$T/old.log" || return 1
	# Passed back: the old run is clean, the new one fails on its new
	# leak alone, the still reachable block is left as it was.
	ci_check 0 --suppressions "$T/supp" "$BUILD/ci_leaks" "$T/old.log" || return 1
	ci_check 1 --json --suppressions "$T/supp" "$BUILD/ci_leaks" "$T/new.log" || return 1
	$CI_CHECK records ci.out | awk '{ print $2, $3, $4 }' | sort >got
	printf '%s\n' 'definitely-lost 1201 ^leak_config$' 'definitely-lost 1202 ^leak_cache$' \
		'definitely-lost 1203 ^leak_list$' 'definitely-lost 1301 -' \
		'indirectly-lost 1204 ^leak_list$' 'indirectly-lost 1204 ^leak_list$' \
		'still-reachable 1205 -' | sort >want
	diff want got || { fail "suppressed: want (<) got (>)"; return 1; }
}

# Bad input: told, status 2, never a crash.
t_ci_errors() {
	need_libmtrace || return
	ci_run new.log new || return 1
	ci_check 2 --sarif /nonexistent/dir/x.sarif "$BUILD/ci_leaks" "$T/new.log" || return 1
	grep -q "x.sarif: cannot write the SARIF file" ci.err || { fail "$(cat ci.err)"; return 1; }
	ci_check 2 --gen-suppressions= "$BUILD/ci_leaks" "$T/new.log" || return 1
	# A baseline cannot be made of a log without verdicts.
	traced off.log MEMLEAK_CONFIG=reach=0 "$BUILD/ci_leaks" new >out 2>err ||
		{ fail "reach=0 run: $(head -3 err)"; return 1; }
	ci_check 2 --write-baseline "$T/base.txt" "$BUILD/ci_leaks" "$T/off.log" || return 1
	grep -q "no reachability verdicts" ci.err || { fail "$(cat ci.err)"; return 1; }
}

# ---- logs without reachability verdicts ------------------------------------
# A libmtrace log written with MEMLEAK_CONFIG=reach=0 and one of glibc's
# own tracer: every CI output reports their blocks not freed as the kind
# "not freed (no reachability verdict)" (doc/ci.md), instead of refusing
# them.  NV_LOGS: "LOG:RECORDS:BYTES" each, RECORDS and BYTES from the
# text report and --json (the groups by stack; glibc's log: its callers).
nv_logs() {
	need_libmtrace || return
	traced "$T/reach0.log" MEMLEAK_CONFIG=reach=0 "$BUILD/ci_leaks" new >out 2>err ||
		{ fail "reach=0 run: $(head -3 err)"; return 1; }
	glibc_traced "$T/glibc.log" "$BUILD/ci_leaks" new >out 2>err ||
		{ fail "glibc's tracer: $(head -3 err)"; return 1; }
	! grep -q '^#C scan ' "$T/reach0.log" || { fail "reach=0 log has a scan"; return 1; }
	local log recs bytes
	NV_LOGS=
	for log in reach0 glibc; do
		"$MTRACE_CHECK" "$BUILD/ci_leaks" "$T/$log.log" >"$T/$log.txt" 2>/dev/null
		if [ $log = glibc ]; then
			recs=$(awk '/^0x/ { $1 = $2 = $3 = ""; print }' "$T/$log.txt" | sort -u | wc -l)
		else
			recs=$(grep -c ' allocated from:$' "$T/$log.txt")
		fi
		bytes=$("$MTRACE_CHECK" --json "$BUILD/ci_leaks" "$T/$log.log" 2>/dev/null |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["totals"]["leaked_bytes"])')
		[ "$recs" -gt 1 ] && [ "$bytes" -gt 0 ] ||
			{ fail "$log: $recs records, $bytes bytes"; return 1; }
		NV_LOGS="$NV_LOGS $log.log:$recs:$bytes"
	done
}

# nv_each FUNCTION: FUNCTION LOG RECORDS BYTES for each log of nv_logs.
nv_each() {
	local spec
	nv_logs || return
	for spec in $NV_LOGS; do
		IFS=: read -r log recs bytes <<<"$spec"
		"$1" "$log" "$recs" "$bytes" || { fail "$log"; return 1; }
	done
}

nv_sarif() {
	ci_check 1 --sarif "$T/nv.sarif" "$BUILD/ci_leaks" "$T/$1" || return 1
	$CI_CHECK nv-sarif "$T/nv.sarif" "$HERE/schemas/sarif-schema-2.1.0.json" "$2" "$3"
}
t_ci_noverdict_sarif() { need_jsonschema || return; nv_each nv_sarif; }

nv_junit() {
	ci_check 1 --junit "$T/nv.xml" "$BUILD/ci_leaks" "$T/$1" || return 1
	$CI_CHECK nv-junit "$T/nv.xml" "$2"
}
t_ci_noverdict_junit() { nv_each nv_junit; }

nv_codequality() {
	ci_check 1 --codequality "$T/nv.json" "$BUILD/ci_leaks" "$T/$1" || return 1
	$CI_CHECK nv-codequality "$T/nv.json" "$2" "$3"
}
t_ci_noverdict_codequality() { nv_each nv_codequality; }

# valgrind's XML: well-formed, protocol 4 (vgxml.py of tests/memcheck),
# kind Leak_DefinitelyLost with an auxwhat saying "not freed".
nv_xml() {
	ci_check 1 --xml "$T/nv.vg.xml" "$BUILD/ci_leaks" "$T/$1" || return 1
	xmllint --noout "$T/nv.vg.xml" || { fail "xmllint"; return 1; }
	python3 "$HERE/../memcheck/vgxml.py" "$T/nv.vg.xml" >/dev/null || return 1
	$CI_CHECK nv-xml "$T/nv.vg.xml" "$2" "$3"
}
t_ci_noverdict_xml() {
	command -v xmllint >/dev/null || { skip "xmllint missing (libxml2-utils)"; return; }
	nv_each nv_xml
}

# valgrind's text: a loss record of memcheck's words per record (what
# ctest counts), each with the note where valgrind prints an auxwhat.
nv_valgrind() {
	ci_check 1 --valgrind "$BUILD/ci_leaks" "$T/$1" || return 1
	local n notes lost
	n=$(grep -c 'blocks are definitely lost in loss record' "$T/ci.out")
	notes=$(grep -c '^==[0-9]*==  not freed (no reachability verdict): ' "$T/ci.out")
	lost=$(sed -n 's/^==[0-9]*==    definitely lost: \([0-9,]*\) bytes.*/\1/p' "$T/ci.out" | tr -d ,)
	[ "$n" = "$2" ] && [ "$notes" = "$2" ] && [ "$lost" = "$3" ] ||
		{ fail "$n records, $notes notes, $lost bytes; want $2, $2, $3"; return 1; }
}
t_ci_noverdict_valgrind() { nv_each nv_valgrind; }

# pprof: the leaked samples labelled leak_class=not-freed, read by go
# tool pprof; their sum is the log's bytes not freed (a libmtrace log:
# glibc's has no stacks to profile).
t_ci_noverdict_pprof() {
	command -v go >/dev/null || { skip "go missing (golang-go)"; return; }
	nv_logs || return
	local spec=${NV_LOGS# } total
	IFS=: read -r log recs bytes <<<"${spec%% *}"
	ci_check 1 --pprof "$T/nv.pb.gz" "$BUILD/ci_leaks" "$T/$log" || return 1
	total=$(cd "$T" && HOME=$T GOCACHE=$T/gocache limited go tool pprof -raw nv.pb.gz 2>/dev/null |
		awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
			s && $6 ~ /^[0-9]+:$/ { v = $6 + 0 } s && /leak_class:\[not-freed\]/ { t += v } END { print t + 0 }')
	[ "$total" = "$bytes" ] || { fail "not-freed leaked_space $total, want $bytes"; return 1; }
}

# Resources not released (progs/beyond.c, tests-beyond.sh): the lock and
# the descriptor are findings of each CI file (rule "resource-not-
# released"), located at the function that acquired them, with the same
# fingerprint in the three files and across two runs (ASLR); they fail the
# run as definitely lost blocks do, and are warnings with --fail-on=none.
# The SARIF file still validates, the JUnit file parses with xmllint too.
t_ci_resources() {
	need_libmtrace || return
	need_jsonschema || return
	local run fps=() level st
	for run in 1 2; do
		traced r$run.log MEMLEAK_CONFIG=mtraceinit,fds=1,mmap=1 "$BUILD/beyond" >out 2>err ||
			{ fail "beyond: $(cat err)"; return 1; }
		level=error st=1
		[ $run = 2 ] && level=warning st=0
		ci_check $st $([ $run = 2 ] && echo --fail-on=none) --sarif "$T/r$run.sarif" \
			--junit "$T/r$run.xml" --codequality "$T/r$run.json" "$BUILD/beyond" "$T/r$run.log" ||
			return 1
		fps[$run]=$($CI_CHECK resources r$run.sarif "$HERE/schemas/sarif-schema-2.1.0.json" \
			r$run.xml r$run.json "$HERE" $level lock:take_lock fd:leak_fd) ||
			{ fail "${fps[$run]}"; return 1; }
		if command -v xmllint >/dev/null; then
			xmllint --noout r$run.xml || { fail "xmllint r$run.xml"; return 1; }
		fi
	done
	[ "${fps[1]}" = "${fps[2]}" ] || { fail "fingerprints differ across runs: ${fps[*]}"; return 1; }
	# Only the resources: the exit status counts them as the text report's.
	traced r3.log MEMLEAK_CONFIG=fds=1 "$BUILD/resources" >out 2>err || { fail "resources: $(cat err)"; return 1; }
	ci_check 1 --sarif "$T/r3.sarif" "$BUILD/resources" "$T/r3.log" || return 1
	[ "$(grep -o '"ruleId":"resource-not-released"' r3.sarif | wc -l)" = 2 ] ||
		{ fail "r3.sarif: $(cat r3.sarif)"; return 1; }
}
