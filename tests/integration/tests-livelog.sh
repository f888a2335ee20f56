# SPDX-License-Identifier: GPL-3.0-or-later
# tests-livelog.sh - MEMLEAK_CONFIG=log=live (doc/format.md, "Live logs"):
# a log that holds only the blocks live at the report points.  The same
# deterministic program (progs/live_log.c) runs twice under setarch -R
# (the same addresses), with the full log and with the live one; glibc's
# mtrace must list exactly the same blocks from both and mtrace-check give
# the same loss records.  Sourced by run-tests.sh.

MTRACE_CHECK=${MTRACE_CHECK:-$HERE/../../mtrace-check/mtrace-check}

# same_addresses: setarch -R works here (a container may forbid it).
same_addresses() {
	setarch -R true 2>/dev/null
}

# live_pair MODE [VAR=VALUE...]: runs live_log MODE under setarch -R with
# the full log (full/log) and the live one (live/log); extra MEMLEAK_CONFIG
# options in LIVE_EXTRA.
live_pair() {
	local mode=$1 m st
	for m in full live; do
		mkdir -p $m
		# offload=0: the ring's thread (created at the first mtrace(),
		# its memory from the heap) would move the program's blocks.
		(cd $m && traced "$PWD/log" MEMLEAK_CONFIG="log=$m,offload=0${LIVE_EXTRA:+,$LIVE_EXTRA}" \
			setarch -R "$BUILD/live_log" "$mode" >out 2>err)
		st=$?
		[ $st -eq 0 ] || { fail "$m: exit status $st: $(cat $m/err)"; return 1; }
		[ ! -s $m/err ] || { fail "$m: stderr: $(cat $m/err)"; return 1; }
	done
}

# loss_records BINARY LOG: the loss records of mtrace-check --json, one a
# line: class, bytes, blocks and the stack's functions, sorted.
loss_records() {
	"$MTRACE_CHECK" --json --fail-on=none "$1" "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = ["%s %d %d %s" % (r["class"], r["bytes"], r["blocks"],
        ",".join(f["function"] or "?" for f in r["frames"])) for r in d["loss_records"]]
print("\n".join(sorted(rows)))
print("classes", json.dumps(d["totals"]["classes"], sort_keys=True))
print("bad_records", d["totals"]["bad_records"])'
}

# same_verdicts FULL LIVE: glibc mtrace and mtrace-check agree on both.
same_verdicts() {
	local full=$1 live=$2
	run_mtrace "$BUILD/live_log" "$full" >mt.full || { fail "mtrace failed on $full"; return 1; }
	run_mtrace "$BUILD/live_log" "$live" >mt.live || { fail "mtrace failed on $live"; return 1; }
	grep -qE "$LEAK_ROW" mt.full || { fail "no leak in $full: $(cat mt.full)"; return 1; }
	cmp -s mt.full mt.live || { fail "glibc mtrace differs: $(diff mt.full mt.live)"; return 1; }
	loss_records "$BUILD/live_log" "$full" >lr.full &&
		loss_records "$BUILD/live_log" "$live" >lr.live ||
		{ fail "mtrace-check --json failed"; return 1; }
	cmp -s lr.full lr.live || { fail "loss records differ: $(diff lr.full lr.live)"; return 1; }
}

# Every class, a report point, blocks written there and freed later, a
# realloc of a written block, a thread: the same verdicts from a log 20
# times smaller; the library's totals are the full log's counts.
t_livelog_report() {
	need_libmtrace || return
	same_addresses || { skip "setarch -R does not work here"; return; }
	live_pair report || return 1
	check_grammar full/log live/log || return 1
	[ "$(log_field live/log log)" = live ] || { fail "no log=live in the header"; return 1; }
	[ -z "$(log_field full/log log)" ] || { fail "log= in a full log's header"; return 1; }
	same_verdicts full/log live/log || return 1
	local fs ls
	fs=$(stat -c %s full/log) ls=$(stat -c %s live/log)
	[ $((ls * 20)) -lt "$fs" ] || { fail "live log $ls bytes, full $fs"; return 1; }
	grep -q 'definitely-lost 2011 1 alloc,make_classes' lr.live && grep -q 'possibly-lost 2021 1' lr.live ||
		{ fail "classes: $(cat lr.live)"; return 1; }
	# 2031 and 2032 (0x7ef, 0x7f0) were written at the report point, then
	# freed: "+" then "-", and listed by neither checker.
	local a
	for a in 0x7ef 0x7f0 0x7f9; do
		local ptr
		ptr=$(awk -v s=$a '($1 == "+" && $3 == s) { print $2; exit } ($3 == "+" && $5 == s) { print $4; exit }' live/log)
		[ -n "$ptr" ] || { fail "block of size $a not written at the report point"; return 1; }
		grep -q "^- $ptr s" live/log || { fail "no free of $ptr ($a) in the live log"; return 1; }
		! grep -qi "^$ptr" mt.live || { fail "freed $ptr listed"; return 1; }
	done
	# 2041 grew to 2042 (0x7fa) after the report point: listed once.
	[ "$(grep -c ' 0x7fa  at ' mt.live)" -eq 1 ] || { fail "realloc'ed block: $(cat mt.live)"; return 1; }
	# The allocations the library counted are the full log's.
	local allocs
	allocs=$(awk '$1 == "+" || $1 == ">" || $3 == "+" || $3 == ">"' full/log | wc -l)
	local tail_totals
	tail_totals=$(grep '^#C totals ' live/log | tail -1)
	[[ $tail_totals == "#C totals allocs=$allocs "* ]] ||
		{ fail "totals: $tail_totals, the full log has $allocs allocations"; return 1; }
	"$MTRACE_CHECK" --fail-on=none --html live.html "$BUILD/live_log" live/log >/dev/null 2>html.err &&
		grep -q "\"allocs\":$allocs," live.html || { fail "HTML allocations not the library's"; return 1; }
	# The outputs that sum allocations by stack say the log has no history.
	grep -q 'live.log: a live log (MEMLEAK_CONFIG=log=live): allocations and peaks by stack count the blocks it holds' html.err ||
		{ fail "no note for --html: $(cat html.err)"; return 1; }
	"$MTRACE_CHECK" --fail-on=none --json "$BUILD/live_log" live/log >/dev/null 2>json.err &&
		"$MTRACE_CHECK" --fail-on=none --html full.html "$BUILD/live_log" full/log >/dev/null 2>>json.err &&
		[ ! -s json.err ] || { fail "a note where none is due: $(cat json.err)"; return 1; }
}

# The ring (offload=N: from the Nth distinct stack on, 1 here;
# libmtrace/track/offload.h): the program's thread only unwinds, a thread
# of libmtrace's own enters its events in the tables.  It runs while the
# program has one thread (a second task in /proc/self/task), not with
# offload=0, nor before the program has met N stacks (the default, 4096,
# is more than it has), nor on one CPU; the
# verdicts are those without it: every class, a realloc that grew and one
# that failed (its block still the program's), a thread's leak (the ring
# stops then), and the "-" of blocks written at a report point and freed
# after it, one by a destructor after the exit's verdicts.
t_livelog_offload() {
	need_libmtrace || return
	local mode o st want=1 a ptr
	[ "$(nproc)" -lt 2 ] || want=2
	for mode in solo thread fork; do
		for o in 1 0 4096; do
			mkdir -p $mode.$o
			(cd $mode.$o && traced "$PWD/log" MEMLEAK_CONFIG="log=live,offload=$o" \
				"$BUILD/offload" $mode >out 2>err)
			st=$?
			[ $st -eq 0 ] || { fail "$mode offload=$o: exit status $st: $(cat $mode.$o/err)"; return 1; }
			[ ! -s $mode.$o/err ] || { fail "$mode offload=$o: stderr: $(cat $mode.$o/err)"; return 1; }
			check_grammar $mode.$o/log || return 1
		done
		grep -qx "tasks=$want" $mode.1/out ||
			{ fail "$mode offload=1 on $(nproc) CPUs: $(cat $mode.1/out), want tasks=$want"; return 1; }
		grep -qx "tasks=1" $mode.0/out || { fail "$mode offload=0: $(cat $mode.0/out)"; return 1; }
		grep -qx "tasks=1" $mode.4096/out || { fail "$mode offload=4096 (default): $(cat $mode.4096/out)"; return 1; }
		loss_records "$BUILD/offload" $mode.1/log >lr.$mode.1 &&
			loss_records "$BUILD/offload" $mode.0/log >lr.$mode.0 ||
			{ fail "mtrace-check --json failed"; return 1; }
		cmp -s lr.$mode.0 lr.$mode.1 || { fail "$mode: loss records differ: $(diff lr.$mode.0 lr.$mode.1)"; return 1; }
		for a in 'definitely-lost 3002 1' 'definitely-lost 3011 1' 'indirectly-lost 3012 1' \
			'possibly-lost 3021 1' 'definitely-lost 3052 1' 'definitely-lost 3061 1' \
			'definitely-lost 3071 1'; do
			grep -q "^$a " lr.$mode.1 || { fail "$mode: no '$a' in $(cat lr.$mode.1)"; return 1; }
		done
		# 3031 (0xbd7) and 3041 (0xbe1): "+" at the report point, then "-".
		for o in 1 0; do
			for a in 0xbd7 0xbe1; do
				ptr=$(awk -v s=$a '($1 == "+" && $3 == s) { print $2; exit } ($3 == "+" && $5 == s) { print $4; exit }' $mode.$o/log)
				[ -n "$ptr" ] && grep -q "^- $ptr s" $mode.$o/log ||
					{ fail "$mode offload=$o: block of size $a: no '+' then '-'"; return 1; }
			done
		done
		if [ $mode = fork ]; then
			local c0 c1
			c0=$(ls $mode.0/log.* 2>/dev/null | head -1) c1=$(ls $mode.1/log.* 2>/dev/null | head -1)
			[ -n "$c0" ] && [ -n "$c1" ] || { fail "fork: no child log"; return 1; }
			loss_records "$BUILD/offload" "$c1" >lr.child.1 && loss_records "$BUILD/offload" "$c0" >lr.child.0 ||
				{ fail "mtrace-check --json failed on the child's log"; return 1; }
			cmp -s lr.child.0 lr.child.1 || { fail "fork: child's loss records differ: $(diff lr.child.0 lr.child.1)"; return 1; }
			grep -q '^definitely-lost 3081 1 ' lr.child.1 && grep -q ' 3082 1 ' lr.child.1 ||
				{ fail "fork: child's records: $(cat lr.child.1)"; return 1; }
		fi
		# The "-" lines of libintl's blocks, freed by glibc after the verdicts.
		[ "$(grep -c '^- ' $mode.1/log)" -eq "$(grep -c '^- ' $mode.0/log)" ] ||
			{ fail "$mode: '-' lines: $(grep -c '^- ' $mode.1/log) with the ring, $(grep -c '^- ' $mode.0/log) without"; return 1; }
	done
	if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
		mkdir -p one
		(cd one && limited taskset -c 0 env MALLOC_TRACE="$PWD/log" LD_PRELOAD="$LIB" \
			MEMLEAK_CONFIG=log=live,offload=1 "$BUILD/offload" >out 2>err) ||
			{ fail "one CPU: $(cat one/err)"; return 1; }
		grep -qx "tasks=1" one/out || { fail "one CPU: $(cat one/out)"; return 1; }
	fi
}

# 32768 stacks first written at one report point: their lines' parts take
# memory with the scan's locks held (a hang before the survivors were
# written ahead of the registry's lock).
t_livelog_stacks() {
	need_libmtrace || return
	same_addresses || { skip "setarch -R does not work here"; return; }
	live_pair stacks || return 1
	[ "$(grep -c '^#s ' live/log)" -ge 32768 ] || { fail "stacks: $(grep -c '^#s ' live/log)"; return 1; }
	run_mtrace "$BUILD/live_log" full/log >mt.full && run_mtrace "$BUILD/live_log" live/log >mt.live ||
		{ fail "mtrace failed"; return 1; }
	cmp -s mt.full mt.live || { fail "glibc mtrace differs: $(diff mt.full mt.live | head -5)"; return 1; }
	[ "$(grep -cE "$LEAK_ROW" mt.live)" -eq 16384 ] || { fail "$(grep -cE "$LEAK_ROW" mt.live) leaks listed, want 16384"; return 1; }
}

# reach=0: no scan, but the blocks live at exit are written all the same.
t_livelog_reach_off() {
	need_libmtrace || return
	same_addresses || { skip "setarch -R does not work here"; return; }
	LIVE_EXTRA=reach=0 live_pair report || return 1
	! grep -q '^#C scan' live/log || { fail "a scan with reach=0"; return 1; }
	run_mtrace "$BUILD/live_log" full/log >mt.full && run_mtrace "$BUILD/live_log" live/log >mt.live ||
		{ fail "mtrace failed"; return 1; }
	grep -qE "$LEAK_ROW" mt.full || { fail "no leak: $(cat mt.full)"; return 1; }
	cmp -s mt.full mt.live || { fail "glibc mtrace differs: $(diff mt.full mt.live)"; return 1; }
}

# A fork child: its own live log, its own blocks only (not the one it
# inherited and freed); the parent's as the full log has it.
t_livelog_fork() {
	need_libmtrace || return
	same_addresses || { skip "setarch -R does not work here"; return; }
	live_pair fork || return 1
	local m child
	for m in full live; do
		child=$(ls $m/log.* 2>/dev/null | head -1)
		[ -n "$child" ] || { fail "$m: no child log"; return 1; }
		cp "$child" $m/child
	done
	check_grammar live/log live/child || return 1
	[ "$(log_field live/child log)" = live ] || { fail "child log not live"; return 1; }
	same_verdicts full/log live/log || return 1
	same_verdicts full/child live/child || return 1
	grep -q ' 0x80f  at ' mt.live && ! grep -q ' 0x80d  at ' mt.live ||
		{ fail "child's blocks: $(cat mt.live)"; return 1; }
}

# Periodic scans: each writes the blocks new since the previous one, and
# mtrace-check still finds the one growing stack (tests-growth.sh's
# growth-periodic on a live log).
t_livelog_periodic() {
	need_libmtrace || return
	traced log MEMLEAK_CONFIG=log=live,scan_every=0.5 "$BUILD/growth" grow >out 2>err
	local st=$?
	[ $st -eq 0 ] || { fail "exit status $st: $(cat out err)"; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	check_grammar log || return 1
	[ "$(log_field log log)" = live ] || { fail "not a live log"; return 1; }
	[ "$(grep -c '^#C scan .*trigger=periodic' log)" -ge 4 ] || { fail "fewer than 4 periodic scans"; return 1; }
	"$MTRACE_CHECK" --json "$BUILD/growth" log >json
	[ $? -eq 1 ] || { fail "mtrace-check: status not 1 (one leak)"; return 1; }
	local fn def
	fn=$(json_get json '[g["frames"][0]["function"] for g in d["growth"] if g["scans"] >= 3]')
	[ "$fn" = "['add_node']" ] || { fail "growing stacks $fn, want add_node"; return 1; }
	def=$(json_get json '[(r["bytes"], r["frames"][0]["function"]) for r in d["loss_records"] if r["class"] == "definitely-lost"]')
	[ "$def" = "[(77, 'leak_one')]" ] || { fail "definitely lost: $def"; return 1; }
}

# exec after fork and after vfork (the child shares the parent's memory
# until its exec), and exec of the process itself: every image's live log
# lists its leaks (tests-process.sh's exec cases).
t_livelog_exec() {
	need_libmtrace || return
	local how
	for how in fork vfork system; do
		mkdir -p $how && (cd $how && EXEC_CONFIG=log=live exec_case $how) ||
			{ fail "($how)"; return 1; }
		[ "$(log_field $how/log log)" = live ] || { fail "$how: not a live log"; return 1; }
		# No log for the child before its exec: it wrote nothing.
		[ "$(ls $how/log* | wc -l)" -eq $([ $how = system ] && echo 3 || echo 2) ] ||
			{ fail "$how: logs $(ls $how)"; return 1; }
	done
}

# A fatal signal (abort, a fault, SIGTERM): the blocks live when the
# process dies are written before "#e signal" (progs/die.c: 1000 of 32
# bytes and one of 4321).
t_livelog_die() {
	need_libmtrace || return
	local how sig st
	for how in abort:6 segv:11 term:15; do
		sig=${how#*:} how=${how%:*}
		(ulimit -c 0; traced log.$how MEMLEAK_CONFIG=log=live "$BUILD/die" "$how" >out 2>err)
		st=$?
		[ $st -eq $((128 + sig)) ] || { fail "$how: exit status $st"; return 1; }
		grep -qx "#e signal sig=$sig" log.$how || { fail "$how: no '#e signal sig=$sig'"; return 1; }
		[ "$(log_field log.$how log)" = live ] || { fail "$how: not a live log"; return 1; }
		run_mtrace "$BUILD/die" log.$how >mt.$how || { fail "mtrace failed"; return 1; }
		[ "$(grep -cE "$LEAK_ROW" mt.$how)" -eq 1001 ] && grep -q ' 0x10e1  at ' mt.$how ||
			{ fail "$how: $(grep -cE "$LEAK_ROW" mt.$how) blocks listed, want 1001"; return 1; }
	done
}

# classic and sample= keep the full log, and say so.
t_livelog_refused() {
	need_libmtrace || return
	traced log MEMLEAK_CONFIG=log=live,classic "$BUILD/leak_static" >out 2>err
	grep -q 'log=live does not go with classic: the full log is written' err ||
		{ fail "classic: stderr $(cat err)"; return 1; }
	! is_extended log && grep -qE '^@ .* \+ 0x' log || { fail "classic log: $(head -3 log)"; return 1; }
	traced log2 MEMLEAK_CONFIG=log=live,sample=4096 "$BUILD/leak_static" >out 2>err
	grep -q 'log=live does not go with sample=: the full log is written' err ||
		{ fail "sample: stderr $(cat err)"; return 1; }
	[ "$(log_field log2 sample)" = 4096 ] && [ -z "$(log_field log2 log)" ] ||
		{ fail "sampled log header: $(sed -n 2p log2)"; return 1; }
	traced log3 MEMLEAK_CONFIG=log=half "$BUILD/leak_static" >out 2>err
	grep -q 'log' err || { fail "log=half: no message"; return 1; }
}
