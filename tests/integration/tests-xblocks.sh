# SPDX-License-Identifier: GPL-3.0-or-later
# tests-xblocks.sh - blocks that are not malloc's (issue 30): a program's
# own pool (memleak.h's memleak_pool_* calls) and, with MEMLEAK_CONFIG=
# mmap=1, anonymous mappings (progs/xblocks.c, whose header says what
# each block must be).  The loss records are read back from mtrace-check
# --json: each named block with its kind, class and stack, nothing else
# but still reachable malloc blocks; valgrind, given the same program's
# MEMPOOL requests, must agree on the classes.  Sourced by run-tests.sh.

MTRACE_CHECK=${MTRACE_CHECK:-$HERE/../../mtrace-check/mtrace-check}

# xrecords BINARY LOG: "KIND CLASS BYTES FUNCTION" for every loss record,
# FUNCTION the first frame of the program's own outside memleak.h.
xrecords() {
	"$MTRACE_CHECK" --json --show-reachable --fail-on=none "$1" "$2" |
		python3 -c '
import json, sys
for r in json.load(sys.stdin)["loss_records"]:
    fn = next((f.get("function") for f in r["frames"]
               if f.get("function") not in (None, "memleak_pool_alloc")), "?")
    print(r.get("kind", "malloc"), r["class"], r["bytes"], fn)'
}

# expect_xrecords BINARY LOG "KIND:CLASS:BYTES:FUNCTION ...": those loss
# records exactly, and besides them only still reachable malloc ones.
expect_xrecords() {
	local bin=$1 log=$2 want got item bad="" k c b fn
	want=$(echo $3) # one line, single spaces
	check_grammar "$log" || return 1
	got=$(xrecords "$bin" "$log") || { fail "mtrace-check --json failed on $log"; return 1; }
	for item in $want; do
		grep -qx "${item//:/ }" <<<"$got" || bad="$bad
    missing: $item"
	done
	while read -r k c b fn; do
		[ -n "$k" ] || continue
		case " $want " in *" $k:$c:$b:$fn "*) continue ;; esac
		[ "$k $c" = "malloc still-reachable" ] || bad="$bad
    unexpected: $k $c $b $fn"
	done <<<"$got"
	[ -z "$bad" ] || { fail "$log: wrong loss records:$bad
  all of them:
$got"; return 1; }
}

XB_POOLS="pool:definitely-lost:2001:pool_get pool:still-reachable:2002:pool_get"
XB_MAPS="mmap:definitely-lost:65536:map mmap:still-reachable:131072:map"

# Pools without mmap=1: the pool blocks, no mapping; glibc's checker reads
# the log as if the records were not there.
t_xblocks_pools() {
	need_libmtrace || return
	vrun log "$BUILD/xblocks" main || return 1
	grep -q '^#P destroy ' log || { fail "no #P destroy record"; return 1; }
	! grep -q '^#b mmap ' log || { fail "mappings tracked without mmap=1"; return 1; }
	expect_xrecords "$BUILD/xblocks" log "$XB_POOLS" || return 1
	grep -vE '^#[bxPk] ' log >stripped
	limited mtrace "$BUILD/xblocks" log >glibc.out 2>&1
	limited mtrace "$BUILD/xblocks" stripped >glibc.stripped 2>&1
	cmp -s glibc.out glibc.stripped ||
		{ fail "glibc's mtrace reads the records: $(diff glibc.out glibc.stripped)"; return 1; }
	"$MTRACE_CHECK" "$BUILD/xblocks" log >report 2>&1
	grep -q '^2,001 bytes in 1 pool blocks are definitely lost in loss record 1 of ' report ||
		{ fail "text report: $(grep 'loss record' report)"; return 1; }
}

t_xblocks_mmap() {
	need_libmtrace || return
	MEMLEAK_CONFIG=mmap=1 vrun log "$BUILD/xblocks" main || return 1
	expect_xrecords "$BUILD/xblocks" log "$XB_POOLS $XB_MAPS"
}

# A partial munmap, mremap, MAP_FIXED over a mapping: the pieces left.
t_xblocks_mmap_ops() {
	need_libmtrace || return
	MEMLEAK_CONFIG=mmap=1 vrun log "$BUILD/xblocks" ops || return 1
	expect_xrecords "$BUILD/xblocks" log \
		"mmap:definitely-lost:4096:map mmap:still-reachable:4096:map
		 mmap:still-reachable:20480:case_ops mmap:still-reachable:12288:map
		 mmap:definitely-lost:4096:case_ops"
}

# A tracked mapping is a block, no root: the malloc block only it points
# to (progs/verdicts.c's "pool" case) is lost through it; without mmap=1
# it stays still reachable (t_verdict_pool).
t_xblocks_mmap_root() {
	need_libmtrace || return
	MEMLEAK_CONFIG=mmap=1 vrun log "$BUILD/verdicts" pool || return 1
	expect_xrecords "$BUILD/verdicts" log \
		"mmap:definitely-lost:8388608:case_pool malloc:indirectly-lost:1101:alloc"
}

# valgrind, told of the same pool (MEMPOOL requests) and of the mappings
# (MALLOCLIKE), gives the same classes.
t_xblocks_valgrind() {
	need_libmtrace || return
	command -v valgrind >/dev/null && [ -f /usr/include/valgrind/valgrind.h ] ||
		{ skip "no valgrind (or its valgrind.h)"; return; }
	limited valgrind --leak-check=full --show-leak-kinds=all "$BUILD/xblocks" main \
		>vg.out 2>&1 || { fail "valgrind: $(tail -3 vg.out)"; return 1; }
	local want="2,001:definitely 2,002:still 65,536:definitely 131,072:still" item
	for item in $want; do
		grep -Eq "== ${item%%:*} bytes in 1 blocks are ${item#*:} " vg.out ||
			{ fail "valgrind does not say ${item/:/ bytes: }: $(grep 'are ' vg.out)"; return 1; }
	done
	[ "$(grep -c ' bytes in .* blocks are ' vg.out)" -eq 4 ] ||
		{ fail "valgrind lists other blocks: $(grep 'are ' vg.out)"; return 1; }
}

# The HTML page: the pool's and the mappings' stacks, marked with their
# kind, with their classes among the page's loss records.
t_xblocks_html() {
	need_libmtrace || return
	MEMLEAK_CONFIG=mmap=1 vrun log "$BUILD/xblocks" main || return 1
	"$MTRACE_CHECK" --html page.html "$BUILD/xblocks" log >/dev/null 2>&1
	[ -s page.html ] || { fail "no page"; return 1; }
	python3 - page.html <<'PY' || { fail "page.html: $(cat py.out)"; return 1; }
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'id="mtc-data">\n(.*?)\n</script>', text, re.S).group(1))
kinds, loss = d["stacks"].get("kind", []), d["loss"]
keys = [c["key"] for c in d["classes"]]
got = sorted((kinds[loss[k]], keys[loss[k + 1]], loss[k + 2])
             for k in range(0, len(loss), 4) if kinds[loss[k]])
want = sorted([("pool", "definitely_lost", 2001), ("pool", "still_reachable", 2002),
               ("mmap", "definitely_lost", 65536), ("mmap", "still_reachable", 131072)])
if got != want:
    open("py.out", "w").write("%s != %s" % (got, want))
    sys.exit(1)
PY
}

# Two threads take and give back each other's pool blocks at addresses
# reused all the time: the log stays in causal order (each "#x" after its
# "#b", no address live twice), and the one block leaked at the end is.
t_xblocks_threads() {
	need_libmtrace || return
	vrun log "$BUILD/xblocks" threads || return 1
	local order
	order=$(awk '$1 == "#b" { k = $2 " " $3; if (k in live) { print "line " NR ": live twice"; exit }
			live[k] = 1 }
		$1 == "#x" { k = $2 " " $3; if (!(k in live)) { print "line " NR ": never live"; exit }
			delete live[k] }' log)
	[ -z "$order" ] || { fail "log out of order: $order"; return 1; }
	[ "$(grep -c "^#b pool " log)" -eq 601 ] || { fail "$(grep -c "^#b pool " log) #b records, not 601"; return 1; }
	expect_xrecords "$BUILD/xblocks" log "pool:definitely-lost:48:slot_take"
}
