# SPDX-License-Identifier: GPL-3.0-or-later
# tests-resources.sh - resources other than memory: memleak.h's
# memleak_resource_acquire/release and MEMLEAK_CONFIG=fds=1 (progs/
# resources.c leaks one "lock" and one open() descriptor and gives back
# every other through each call libmtrace records).  Sourced by
# run-tests.sh.

# res_json LOG: mtrace-check --json on LOG (its program from "#p").
res_json() {
	"$MTRACE_CHECK" --json "$(log_program "$1")" "$1" 2>/dev/null
	[ $? -le 1 ]
}

# res_expect JSON 'KIND:FUNCTION ...': the resources not released are one
# per KIND, each acquired under FUNCTION, and nothing else: no warning.
RES_EXPECT_PY='
import json, sys
doc = json.load(sys.stdin)
want = dict(w.split(":") for w in sys.argv[1].split())
r = doc.get("resources") or {"groups": [], "warnings": []}
got = {}
for g in r["groups"]:
    fns = [f["function"] for f in g["frames"]]
    if g["count"] != 1 or g["kind"] in got:
        sys.exit("unexpected group %s (%d held): %s" % (g["kind"], g["count"], fns))
    got[g["kind"]] = fns
if sorted(got) != sorted(want):
    sys.exit("kinds not released: %s, expected %s" % (sorted(got), sorted(want)))
for k, fn in want.items():
    if fn not in got[k][:2]:
        sys.exit("%s not acquired under %s: %s" % (k, fn, got[k]))
if r["warnings"]:
    sys.exit("warnings: %s" % r["warnings"])
'
res_expect() {
	python3 -c "$RES_EXPECT_PY" "$2" <<<"$1"
}

# The leaked lock and descriptor, each with its stack, and nothing else;
# the fork child's close-on-exec descriptor ends at its exec; glibc's
# checker reads the log as if the "#r" records were not there.
t_resources_fds() {
	need_libmtrace || return
	local json pid text
	traced log MEMLEAK_CONFIG=fds=1 "$BUILD/resources" >out 2>err
	[ $? -eq 0 ] || { fail "resources failed: $(cat out err)"; return 1; }
	grep -q '^#r + fd ' log || { fail "no '#r + fd' record"; return 1; }
	json=$(res_json log) || { fail "mtrace-check --json failed"; return 1; }
	res_expect "$json" "lock:take_lock fd:leak_open" || return 1
	text=$("$MTRACE_CHECK" "$BUILD/resources" log 2>&1)
	[ $? -eq 1 ] || { fail "mtrace-check did not exit with 1 on resources not released"; return 1; }
	[ "$(grep -c ' not released (' <<<"$text")" = 2 ] || { fail "text report: $text"; return 1; }
	grep -q '^1 fd not released (3) acquired from:$' <<<"$text" || { fail "text report: $text"; return 1; }
	[ "$(run_mtrace "$BUILD/resources" log)" = "$(grep -v '^#r ' log | run_mtrace "$BUILD/resources" -)" ] ||
		{ fail "glibc's mtrace reads the #r records"; return 1; }
	pid=$(awk '$1 == "child" && $2 == "pid" { print $3 }' out)
	[ -f "log.$pid" ] || { fail "no log.$pid of the fork child; files: $(ls)"; return 1; }
	awk '$1 == "#r" && $2 == "+" { fd = $4 } $1 == "#r" && $2 == "-" && $4 == fd { gone = 1 }
	     $1 == "#e" && $2 == "exec" { exit !(fd && gone) }' "log.$pid" ||
		{ fail "log.$pid: the close-on-exec descriptor does not end at exec"; cat "log.$pid"; return 1; }
	json=$(res_json "log.$pid") || { fail "mtrace-check --json log.$pid failed"; return 1; }
	res_expect "$json" "" || { fail "(log.$pid)"; return 1; }
	check_trace_logs log
}

# Without fds=1: no descriptor is recorded, the report is the same but for
# the descriptor (the lock is the program's own record).
t_resources_nofds() {
	need_libmtrace || return
	local json with without
	traced log "$BUILD/resources" >out 2>err
	[ $? -eq 0 ] || { fail "resources failed: $(cat out err)"; return 1; }
	! grep -q '^#r [-+] fd ' log || { fail "fd records without fds=1"; return 1; }
	json=$(res_json log) || { fail "mtrace-check --json failed"; return 1; }
	res_expect "$json" "lock:take_lock" || return 1
	traced log2 MEMLEAK_CONFIG=fds=1 "$BUILD/resources" >out 2>err || { fail "fds=1 run failed"; return 1; }
	without=$("$MTRACE_CHECK" "$BUILD/resources" log 2>&1 | sed '/^Resources not released/,$d')
	with=$("$MTRACE_CHECK" "$BUILD/resources" log2 2>&1 | sed '/^Resources not released/,$d')
	[ "$with" = "$without" ] || { fail "the memory report differs with fds=1:" "$with" "---" "$without"; return 1; }
	check_trace_logs log
}
