# SPDX-License-Identifier: GPL-3.0-or-later
# tests-children.sh - MEMLEAK_CONFIG=children=0 (mtrace-run
# --trace-children=no, valgrind's semantics): a program started by exec
# or posix_spawn runs untraced - no libmtrace mapped, none of its
# variables, no log, the same output as run without any tracing - while
# fork children of the traced program stay traced.  progs/children.c
# starts "children leaf" each way.  Sourced by run-tests.sh.

CHILD_HOWS="execv execvp execle vfork spawn spawnp"

# children_run DIR CONFIG HOW: a traced run of progs/children.c, each
# process's log DIR/trace.PID; its output in DIR.out.
children_run() {
	local dir=$1 config=$2 how=$3
	rm -rf "$dir"
	mkdir "$dir"
	PATH=$BUILD:$PATH limited env MALLOC_TRACE="$PWD/$dir/trace.%p" \
		LD_PRELOAD="${CHILD_PRELOAD:-$LIB}" MEMLEAK_CONFIG="$config" \
		"$BUILD/children" "$how" >"$dir.out" 2>"$dir.err" ||
		{ fail "$how ($config): status $?: $(head -3 "$dir.err")"; return 1; }
}

t_children_untraced() {
	need_libmtrace || return
	local how n
	for how in $CHILD_HOWS; do
		# Untraced, the reference output: what the leaf prints natively.
		PATH=$BUILD:$PATH limited "$BUILD/children" "$how" >native.out 2>&1 ||
			{ fail "$how: native run failed"; return 1; }
		children_run on mtraceinit "$how" || return 1
		n=$(ls on | wc -l)
		[ "$n" -eq 2 ] || { fail "$how, children=1: $n logs, want 2 (the leaf traced)"; return 1; }
		! cmp -s on.out native.out || { fail "$how, children=1: the leaf looks untraced"; return 1; }
		children_run off mtraceinit,children=0 "$how" || return 1
		n=$(ls off | wc -l)
		[ "$n" -eq 1 ] || { fail "$how, children=0: $n logs, want only the parent's: $(ls off)"; return 1; }
		cmp -s off.out native.out ||
			{ fail "$how, children=0: the leaf's output differs: $(diff native.out off.out)"; return 1; }
		# The parent's own log is whole, with its leak.
		"$MTRACE_CHECK" "$BUILD/children" off/trace.* >check.txt 2>&1
		grep -q '^222 bytes in 1 blocks are definitely lost' check.txt ||
			{ fail "$how: the parent's leak: $(head -5 check.txt)"; return 1; }
		grep -q '^#e exec' off/trace.* && { fail "$how: the parent's log ends in exec"; return 1; }
	done
	return 0
}

# Fork children of the traced program stay traced with children=0.
t_children_fork() {
	need_libmtrace || return
	children_run off mtraceinit,children=0 fork || return 1
	local n
	n=$(ls off | wc -l)
	[ "$n" -eq 2 ] || { fail "children=0: $n logs, want the parent's and the fork child's"; return 1; }
	"$MTRACE_CHECK" "$BUILD/children" off/trace.* >check.txt 2>&1
	grep -q '^111 bytes in 1 blocks are definitely lost' check.txt ||
		{ fail "the fork child's leak: $(head -20 check.txt)"; return 1; }
}

# Another preload stays in LD_PRELOAD; only libmtrace leaves it.
t_children_other_preload() {
	need_libmtrace || return
	local other=libdl.so.2
	PATH=$BUILD:$PATH LD_PRELOAD=$other limited "$BUILD/children" execv >native.out 2>&1 ||
		{ fail "native run failed"; return 1; }
	grep -q "^leaf: LD_PRELOAD=$other\$" native.out || { fail "native: $(cat native.out)"; return 1; }
	CHILD_PRELOAD="$LIB $other" children_run off mtraceinit,children=0 execv || return 1
	cmp -s off.out native.out || { fail "the leaf's output differs: $(diff native.out off.out)"; return 1; }
	CHILD_PRELOAD="$other:$LIB" children_run off mtraceinit,children=0 execv || return 1
	cmp -s off.out native.out || { fail "(colon) the leaf's output differs: $(diff native.out off.out)"; return 1; }
}

# mtrace-run --trace-children=no: the run directory holds the parent's
# log only, the leaf prints what it prints untraced.
t_children_mtrace_run() {
	need_libmtrace || return
	local run=$HERE/../../mtrace-run/mtrace-run
	PATH=$BUILD:$PATH limited "$BUILD/children" execv >native.out 2>&1
	PATH=$BUILD:$PATH limited "$run" -q --leak-check=full --trace-children=no \
		--mtrace-dir=rd "$BUILD/children" execv >run.out 2>run.err ||
		{ fail "status $?: $(head -3 run.err)"; return 1; }
	[ "$(ls rd | wc -l)" -eq 1 ] || { fail "logs: $(ls rd)"; return 1; }
	cmp -s run.out native.out || { fail "output: $(diff native.out run.out)"; return 1; }
	grep -q '222 bytes in 1 blocks are definitely lost' run.err || { fail "report: $(cat run.err)"; return 1; }
	! grep -q '333 bytes' run.err || fail "the leaf was reported"
}
