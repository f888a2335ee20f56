# SPDX-License-Identifier: GPL-3.0-or-later
# tests-beyond.sh - issue 30's "done when" in one program (progs/beyond.c):
# a pool block leaked, one kept by a global, a pool destroyed with live
# blocks, a "lock" resource, an open()ed descriptor and a 64 KiB mapping
# leaked.  Under MEMLEAK_CONFIG=mtraceinit,fds=1,mmap=1, mtrace-check (its
# --json and its text) gives each its stack and the class valgrind would
# give it, and nothing else; without fds=1/mmap=1 the report is the same
# but for the descriptor and the mapping.  Sourced by run-tests.sh.

# beyond_summary LOG: one line per loss record ("KIND CLASS BYTES FUNCTION",
# FUNCTION the first frame outside memleak.h and the pool's pool_get) and
# per resource group ("resource KIND COUNT FUNCTION"), then each warning;
# every loss record, the still reachable ones too.
BEYOND_PY='
import json, sys
d = json.load(sys.stdin)
skip = (None, "memleak_pool_alloc", "pool_get", "memleak_resource_acquire")
def own(frames):
    return next((f.get("function") for f in frames if f.get("function") not in skip), "?")
for r in d["loss_records"]:
    print(r.get("kind", "malloc"), r["class"], r["bytes"], own(r["frames"]))
res = d.get("resources") or {"groups": [], "warnings": []}
for g in res["groups"]:
    print("resource", g["kind"], g["count"], own(g["frames"]))
for w in d["warnings"] + res.get("warnings", []):
    print("warning", w)
'
beyond_summary() {
	"$MTRACE_CHECK" --json --show-reachable --fail-on=none "$BUILD/beyond" "$1" 2>beyond.err |
		python3 -c "$BEYOND_PY" | sort
	[ "${PIPESTATUS[0]}" -eq 0 ] && [ ! -s beyond.err ]
}

BEYOND_POOLS="pool definitely-lost 3001 leak_pool_block
pool still-reachable 3002 keep_pool_block"
BEYOND_LOCK="resource lock 1 take_lock"

# beyond_run LOG CONFIG: run the program under CONFIG, check its log.
beyond_run() {
	traced "$1" MEMLEAK_CONFIG="$2" "$BUILD/beyond" >out 2>err
	[ $? -eq 0 ] && [ ! -s err ] || { fail "beyond ($2) failed: $(cat out err)"; return 1; }
	check_grammar "$1"
}

# beyond_text LOG: the text report's loss record and resource headers.
beyond_text() {
	"$MTRACE_CHECK" "$BUILD/beyond" "$1" 2>&1 |
		grep -E ' are definitely lost in | are possibly lost in | are indirectly lost in |^still reachable:| not released |^ *#[0-9] |[Ww]arning'
}

t_beyond_all() {
	need_libmtrace || return
	local got want text
	beyond_run log mtraceinit,fds=1,mmap=1 || return 1
	got=$(beyond_summary log) || { fail "mtrace-check --json failed: $(cat beyond.err)"; return 1; }
	want=$(sort <<<"$BEYOND_POOLS
mmap definitely-lost 65536 leak_map
resource fd 1 leak_fd
$BEYOND_LOCK")
	[ "$got" = "$want" ] || { fail "--json: got" "$got" "--- expected" "$want"; return 1; }
	text=$(beyond_text log)
	grep -q '^65,536 bytes in 1 mmap blocks are definitely lost in loss record 1 of 2$' <<<"$text" &&
		grep -q '^3,001 bytes in 1 pool blocks are definitely lost in loss record 2 of 2$' <<<"$text" &&
		grep -q '^still reachable: 3,002 bytes in 1 blocks' <<<"$text" &&
		grep -q '^1 fd not released (3) acquired from:$' <<<"$text" &&
		grep -q '^1 lock not released (0x[0-9a-f]*) acquired from:$' <<<"$text" &&
		[ "$(grep -c -e ' lost in loss record ' -e ' not released ' <<<"$text")" -eq 4 ] &&
		! grep -qi warning <<<"$text" || { fail "text report:" "$text"; return 1; }
	# each record's own frame: the function right under the pool's or
	# memleak.h's frames
	for fn in leak_map leak_pool_block leak_fd take_lock; do
		grep -Eq "^ *#[0-2] $fn at .*beyond\.c:" <<<"$text" ||
			{ fail "text report: no frame of $fn:" "$text"; return 1; }
	done
	"$MTRACE_CHECK" "$BUILD/beyond" log >/dev/null 2>&1
	[ $? -eq 1 ] || { fail "mtrace-check does not fail on the leaks"; return 1; }
}

# Without fds=1 and mmap=1: no descriptor, no mapping, the rest the same
# (the text report's loss records but for the mapping's, its resources but
# for the descriptor's).
t_beyond_without() {
	need_libmtrace || return
	local got want with without
	beyond_run log mtraceinit || return 1
	! grep -Eq '^#r [-+] fd |^#b mmap ' log || { fail "fd or mmap records without fds=1/mmap=1"; return 1; }
	got=$(beyond_summary log) || { fail "mtrace-check --json failed: $(cat beyond.err)"; return 1; }
	want=$(sort <<<"$BEYOND_POOLS
$BEYOND_LOCK")
	[ "$got" = "$want" ] || { fail "--json: got" "$got" "--- expected" "$want"; return 1; }
	beyond_run log2 mtraceinit,fds=1,mmap=1 || return 1
	without=$(beyond_text log | sed 's/ of [0-9]*$//; s/(0x[0-9a-f]*)/(ID)/; s/+0x[0-9a-f]*)/)/')
	with=$(beyond_text log2 | sed 's/ of [0-9]*$//; s/(0x[0-9a-f]*)/(ID)/; s/+0x[0-9a-f]*)/)/' |
		awk '/ mmap blocks are | fd not released / { skip = 1; next }
		     / are .* lost in | not released |^still reachable:/ { skip = 0 }
		     !skip' | sed 's/in loss record 2$/in loss record 1/')
	[ "$with" = "$without" ] || { fail "the reports differ but for fd and mmap:" "$with" "--- without" "$without"; return 1; }
}

# The HTML page of the same run (a program whose only blocks are pool
# blocks and a mapping: mtrace-check --html crashed on it): the pool's and
# the mapping's loss records with their classes.
t_beyond_html() {
	need_libmtrace || return
	beyond_run log mtraceinit,fds=1,mmap=1 || return 1
	local st
	"$MTRACE_CHECK" --html page.html "$BUILD/beyond" log >/dev/null 2>&1
	st=$?
	[ $st -eq 1 ] && [ -s page.html ] || { fail "mtrace-check --html: status $st, or no page"; return 1; }
	python3 - page.html <<'PY' || { fail "page.html: $(cat py.out)"; return 1; }
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'id="mtc-data">\n(.*?)\n</script>', text, re.S).group(1))
kinds, loss = d["stacks"].get("kind", []), d["loss"]
keys = [c["key"] for c in d["classes"]]
got = sorted((kinds[loss[k]], keys[loss[k + 1]], loss[k + 2]) for k in range(0, len(loss), 4))
want = sorted([("pool", "definitely_lost", 3001), ("pool", "still_reachable", 3002),
               ("mmap", "definitely_lost", 65536)])
if got != want:
    open("py.out", "w").write("%s != %s" % (got, want))
    sys.exit(1)
PY
}

# libmtrace's own report at exit (doc/report.md): the pool's lost block
# and the mapping are "leak" lines of their kind, with their functions.
t_beyond_report() {
	need_libmtrace || return
	limited env MEMLEAK_CONFIG=mtraceinit,fds=1,mmap=1,report=stderr LD_PRELOAD="$LIB" \
		"$BUILD/beyond" >out 2>report || { fail "beyond failed: $(cat report)"; return 1; }
	local got
	got=$(awk '$1 == "leak" { cls = $2; bytes = $4; k = "malloc"
			if (match($0, / kind [a-z]+/)) k = substr($0, RSTART + 6, RLENGTH - 6)
			getline; f = $2; if (f ~ /^pool_get/) { getline; f = $2 }
			sub(/\+.*/, "", f); print cls, bytes, k, f }
		$1 == "leaks" { n = $2 } END { print "leaks", n }' report)
	[ "$got" = "definitely-lost 65536 mmap leak_map
definitely-lost 3001 pool leak_pool_block
leaks 2" ] || { fail "report's leaks:" "$got" "---" "$(cat report)"; return 1; }
}
