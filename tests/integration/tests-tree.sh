# SPDX-License-Identifier: GPL-3.0-or-later
# tests-tree.sh - one report for a process tree (issue 28, item 5):
# mtrace-check given the logs of a run directory reports each process as
# it reports that log alone, then one combined summary whose sums are the
# per-process figures added up; glibc-style (classic) logs get no summary.
# Sourced by run-tests.sh.

MTRACE_CHECK=${MTRACE_CHECK:-$HERE/../../mtrace-check/mtrace-check}

# tree_logs DIR PROGRAM ARGS...: every process of a traced run writes
# DIR/trace.PID.
tree_logs() {
	local dir=$1
	shift
	mkdir -p "$dir"
	traced "$dir/trace.%p" "$@" >out 2>err ||
		{ fail "$*: status $?: $(head -3 err)"; return 1; }
}

# sum_class FILE... WORDS: the bytes, blocks and loss records of class
# WORDS ("definitely lost") in the LEAK SUMMARYs and loss record lines of
# one-log reports.
sum_class() {
	local words=${!#}
	awk -v w="$words" '
		$0 ~ "^ *" w ": .* blocks$" { gsub(",", ""); b += $(NF - 4); k += $(NF - 1) }
		$0 ~ "are " w " in loss record" { r++ }
		END { printf "%d bytes in %d blocks, %d loss records\n", b, k, r }' "${@:1:$#-1}"
}

t_tree_summary() {
	need_libmtrace || return
	tree_logs rd "$BUILD/fork" exit || return 1
	local logs=(rd/trace.*) i st words want got opt
	[ ${#logs[@]} -eq 2 ] || { fail "logs: ${logs[*]}"; return 1; }
	# --show-reachable: every loss record listed, each counted.
	for opt in "" --show-reachable; do
		"$MTRACE_CHECK" $opt "$BUILD/fork" "${logs[@]}" >all.txt 2>all.err
		st=$?
		[ $st -eq 1 ] || { fail "$opt: status $st: $(cat all.err)"; return 1; }
		# Above the summary: each log's own report, under its header.
		: >parts.txt
		for i in "${!logs[@]}"; do
			"$MTRACE_CHECK" $opt "$BUILD/fork" "${logs[i]}" >one.$i.txt 2>/dev/null
			[ "$i" -eq 0 ] || echo >>parts.txt
			echo "==> ${logs[i]} <==" >>parts.txt
			cat one.$i.txt >>parts.txt
		done
		sed '/^==> summary of 2 logs <==$/,$d' all.txt | sed '$d' >above.txt
		cmp -s above.txt parts.txt || { fail "$opt: per-process reports changed: $(diff parts.txt above.txt | head)"; return 1; }
		grep -q '^==> summary of 2 logs <==$' all.txt || { fail "no summary: $(tail all.txt)"; return 1; }
		grep -q '^LEAK SUMMARY of 2 processes:$' all.txt || { fail "no LEAK SUMMARY of 2"; return 1; }
	done
	# The sums are the processes' figures added up.
	for words in "definitely lost" "indirectly lost" "possibly lost" "still reachable"; do
		want=$(sum_class one.*.txt "$words")
		got=$(sed -n '/^LEAK SUMMARY of/,$p' all.txt | grep "^ *$words: " | sed 's/^ *[a-z ]*: //; s/,\([0-9]\)/\1/g')
		[ "$got" = "$want" ] || { fail "$words: '$got', want '$want'"; return 1; }
	done
	grep -q '^ *definitely lost: 777 bytes in 2 blocks, 2 loss records$' all.txt ||
		{ fail "definitely lost: not fork.c's 444 + 333"; return 1; }
	# A row per process: its pid (from the log's header), the log, status 1.
	for i in "${!logs[@]}"; do
		local pid
		pid=$(grep -m1 -o ' pid=[0-9]*' "${logs[i]}" | cut -d= -f2)
		grep -qE "^ *$pid +[0-9]+ +exit +1 .* ${logs[i]} " all.txt ||
			{ fail "no row for $pid (${logs[i]}): $(sed -n '/^==> summary/,$p' all.txt)"; return 1; }
	done
	grep -q '^status 1: 2 of 2 logs with leaks' all.txt || { fail "status line: $(tail -1 all.txt)"; return 1; }
	# A log that is no log: a row, not checked, status 2.
	printf 'garbage\n' >bad.log
	"$MTRACE_CHECK" "$BUILD/fork" "${logs[@]}" bad.log >bad.txt 2>/dev/null
	[ $? -eq 2 ] || { fail "with a bad log: status not 2"; return 1; }
	grep -q '^LEAK SUMMARY of 2 processes:$' bad.txt && grep -q '^status 2: .*, 1 not checked$' bad.txt ||
		{ fail "bad log: $(sed -n '/^==> summary/,$p' bad.txt)"; return 1; }
}

# glibc-style logs (MEMLEAK_CONFIG=classic): the output of several stays
# each log's Perl-compatible report under its header, nothing after.
t_tree_classic() {
	need_libmtrace || return
	MEMLEAK_CONFIG=classic tree_logs rc "$BUILD/fork" exit || return 1
	local logs=(rc/trace.*) i
	[ ${#logs[@]} -eq 2 ] || { fail "logs: ${logs[*]}"; return 1; }
	"$MTRACE_CHECK" "$BUILD/fork" "${logs[@]}" >all.txt 2>/dev/null
	: >parts.txt
	for i in "${!logs[@]}"; do
		[ "$i" -eq 0 ] || echo >>parts.txt
		echo "==> ${logs[i]} <==" >>parts.txt
		"$MTRACE_CHECK" "$BUILD/fork" "${logs[i]}" >>parts.txt 2>/dev/null
	done
	cmp -s all.txt parts.txt || { fail "classic logs: $(diff parts.txt all.txt | head)"; return 1; }
}
