# SPDX-License-Identifier: GPL-3.0-or-later
# tests-growth.sh - periodic scans (MEMLEAK_CONFIG=scan_every) and what
# mtrace-check makes of them: the stacks whose still reachable memory keeps
# growing (issue 29).  Sourced by run-tests.sh.

# json_get FILE PYTHON-EXPR: EXPR evaluated with d = the JSON object.
json_get() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# A global cache gains a 1 KiB node every 50 ms for 3 s, another site
# allocates and frees steadily, a second cache fills then stays flat, and
# one block is leaked (progs/growth.c), with a scan every 0.5 s: only the
# growing cache's stack is listed, at the rate the program itself measured
# (within 20%; within 50% of the nominal 20 KiB/s: a loaded machine
# sleeps longer), and the leak is definitely lost.
t_growth_periodic() {
	need_libmtrace || return
	local st nodes secs want
	traced log MEMLEAK_CONFIG=scan_every=0.5 "$BUILD/growth" grow >out 2>err
	st=$?
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	check_grammar log || return 1
	local periodic costs
	periodic=$(grep -c '^#C scan .*trigger=periodic' log)
	costs=$(grep -c '^#C cost seq=[0-9]* us=[0-9]* stop_us=[0-9]* hold_us=[0-9]* stall_us=[0-9]*$' log)
	[ "$periodic" -ge 4 ] || { fail "$periodic periodic scans in 3 s"; return 1; }
	[ "$costs" -eq "$(grep -c '^#C scan ' log)" ] ||
		{ fail "$costs cost records for $(grep -c '^#C scan ' log) scans"; return 1; }
	nodes=$(sed -n 's/^nodes=\([0-9]*\) .*/\1/p' out)
	secs=$(sed -n 's/.* seconds=\([0-9.]*\)$/\1/p' out)
	[ -n "$nodes" ] && [ -n "$secs" ] || { fail "no figures: $(cat out)"; return 1; }
	want=$(awk -v n="$nodes" -v s="$secs" 'BEGIN { printf "%.1f", (n - 1) * 1024 / s }')
	"$MTRACE_CHECK" --json "$BUILD/growth" log >json
	[ $? -eq 1 ] || { fail "mtrace-check: status not 1 (one leak)"; return 1; }
	local n fn rate def
	n=$(json_get json 'len(d["growth"])')
	fn=$(json_get json '[g["frames"][0]["function"] for g in d["growth"]]')
	[ "$n" = 1 ] || { fail "growing stacks: $fn, want add_node alone"; return 1; }
	[ "$fn" = "['add_node']" ] || { fail "growing stack $fn, want add_node"; return 1; }
	rate=$(json_get json 'd["growth"][0]["bytes_per_second"]')
	note "reported $rate bytes/s; the program added $nodes nodes in $secs s: $want bytes/s"
	awk -v r="$rate" -v w="$want" 'BEGIN { exit !(r >= 0.8 * w && r <= 1.2 * w) }' ||
		{ fail "rate $rate not within 20% of the program's $want"; return 1; }
	awk -v r="$rate" 'BEGIN { exit !(r >= 0.5 * 20480 && r <= 1.5 * 20480) }' ||
		{ fail "rate $rate far from 20 KiB/s"; return 1; }
	[ "$(json_get json 'd["growth"][0]["scans"] >= 3')" = True ] ||
		{ fail "fewer than 3 scans in the run"; return 1; }
	def=$(json_get json '[(r["bytes"], r["frames"][0]["function"]) for r in d["loss_records"] if r["class"] == "definitely-lost"]')
	[ "$def" = "[(77, 'leak_one')]" ] || { fail "definitely lost: $def"; return 1; }
	"$MTRACE_CHECK" "$BUILD/growth" log >text
	grep -q '^Still reachable and growing: 1 allocation stacks' text &&
		grep -A1 'bytes still reachable, from' text | grep -q 'add_node' ||
		{ fail "text report: $(tail -20 text)"; return 1; }
	! grep -A3 'bytes still reachable, from' text | grep -qE 'churn_one|fill_flat' ||
		{ fail "text lists a steady site"; return 1; }
}

# A scan every 50 ms stops the main thread over and over while it sleeps in
# nanosleep(1 s) and then waits in select() for 1 s: neither returns early
# nor with EINTR (progs/growth.c sleep measures the time).
t_growth_sleep() {
	need_libmtrace || return
	local st n
	traced log MEMLEAK_CONFIG=scan_every=0.05 "$BUILD/growth" sleep >out 2>err
	st=$?
	[ $st -eq 0 ] && [ "$(tail -n1 out)" = ok ] ||
		{ fail "exit status $st: $(cat out err)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	# Scans that stopped the sleeping main thread.
	n=$(grep -c '^#C scan .*trigger=periodic .*stopped=1 ' log)
	note "$(head -n1 out); $n periodic scans stopped the sleeping thread"
	[ "$n" -ge 5 ] || { fail "only $n periodic scans stopped the thread"; return 1; }
	check_grammar log
}

# The option's values: fractions, bounds, and a clear message when wrong.
t_growth_option() {
	need_libmtrace || return
	traced log MEMLEAK_CONFIG=scan_every=0.001 "$BUILD/growth" sleep >out 2>err
	grep -q "scan_every=0.001" err && grep -q "out of range (0.01-86400 seconds)" err ||
		{ fail "no range message: $(cat err)"; return 1; }
	! grep -q 'trigger=periodic' log || { fail "scans despite a bad value"; return 1; }
	traced log MEMLEAK_CONFIG=scan_every=abc "$BUILD/growth" sleep >out 2>err
	grep -q "not a duration in seconds" err || { fail "no message: $(cat err)"; return 1; }
}

# A leak, a report point (mtrace(): a scan), a second leak, exit: the exit
# scan's second leak is new since the previous scan, the first is not;
# the checker's text and JSON say so, and so do libmtrace's own reports
# (" new" on the leak line: doc/report.md); the leaks keep their
# fingerprints from run to run.  With mtraceinit the program's first
# mtrace() is a report (1, nothing lost), its second report 2, exit 3.
t_growth_new_leaks() {
	need_libmtrace || return
	local st run
	for run in 1 2; do
		rm -f rep.*
		traced log$run MEMLEAK_CONFIG=mtraceinit,report=rep.%n "$BUILD/growth" newleaks >out 2>err
		st=$?
		[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
		"$MTRACE_CHECK" --json "$BUILD/growth" log$run >json$run
		"$MTRACE_CHECK" "$BUILD/growth" log$run >text$run
	done
	local got
	got=$(json_get json1 'sorted((r["frames"][0]["function"], r.get("new_since_previous")) for r in d["loss_records"] if r["class"] == "definitely-lost")')
	[ "$got" = "[('leak_first', False), ('leak_second', True)]" ] ||
		{ fail "definitely lost: $got"; return 1; }
	grep -B8 '(new since the previous scan)' text1 | grep -q '93 bytes in 1 blocks are definitely lost' ||
		{ fail "text does not mark the new leak: $(cat text1)"; return 1; }
	[ "$(grep -c '(new since the previous scan)' text1)" = 1 ] ||
		{ fail "text marks more than the new leak"; return 1; }
	grep -q '^leak definitely-lost bytes 91 blocks 1 indirect-bytes 0 stack [0-9]* new$' rep.2 ||
		{ fail "report 2 does not call the first leak new: $(grep ^leak rep.2)"; return 1; }
	grep -q '^leak definitely-lost bytes 93 blocks 1 indirect-bytes 0 stack [0-9]* new$' rep.3 &&
		grep -q '^leak definitely-lost bytes 91 blocks 1 indirect-bytes 0 stack [0-9]*$' rep.3 ||
		{ fail "report 3: $(grep ^leak rep.3)"; return 1; }
	! grep -q ' new$' rep.1 || { fail "report 1 calls a leak new"; return 1; }
	local fp1 fp2
	fp1=$(json_get json1 'sorted(r["fingerprint"] for r in d["loss_records"] if r["class"] == "definitely-lost")')
	fp2=$(json_get json2 'sorted(r["fingerprint"] for r in d["loss_records"] if r["class"] == "definitely-lost")')
	[ "$fp1" = "$fp2" ] || { fail "fingerprints differ between runs: $fp1 / $fp2"; return 1; }
}

# Fork while periodic scans run (a scan every 10 ms, a fork every 10 ms):
# no hang, the children's logs hold no periodic scan (a fork child makes
# none: the thread is not inherited), the parent's log many, every log
# consistent.
t_growth_forks() {
	need_libmtrace || return
	local st n f
	traced log MEMLEAK_CONFIG=scan_every=0.01 "$BUILD/growth" forks >out 2>err
	st=$?
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	n=$(grep -c '^#C scan .*trigger=periodic' log)
	note "$(cat out); $n periodic scans in the parent"
	[ "$n" -ge 10 ] || { fail "$n periodic scans"; return 1; }
	check_grammar log || return 1
	for f in log.*; do
		[ -e "$f" ] || continue
		! grep -q 'trigger=periodic' "$f" || { fail "$f: a periodic scan in a child"; return 1; }
		check_grammar "$f" || return 1
	done
	expect_leaks "$BUILD/growth" log ""
}
