# SPDX-License-Identifier: GPL-3.0-or-later
# tests-diff.sh - two runs compared (issue 29): mtrace-check --diff OLD
# NEW on real runs of progs/ci_leaks.c (each run another load address:
# PIE and ASLR), whose "new" mode adds one leak (leak_session, 1301
# bytes); and what the block is: the first bytes of a definitely lost
# block and the class of a leaked C++ object, read at scan time
# (progs/block_preview.cc).  Sourced by run-tests.sh.

MTRACE_CHECK=${MTRACE_CHECK:-$HERE/../../mtrace-check/mtrace-check}

# diff_check WANT_STATUS ARGS...: mtrace-check ARGS, its output in d.out.
diff_check() {
	local want=$1 st
	shift
	"$MTRACE_CHECK" "$@" >"$T/d.out" 2>"$T/d.err"
	st=$?
	[ $st -eq "$want" ] ||
		{ fail "mtrace-check $*: status $st, want $want: $(head -5 "$T/d.err")"; return 1; }
}

# diff_lists: "new:N gone:N grown:N" and then each listed record as
# "LIST CLASS BYTES FUNCTION", from --json's output in d.out.
diff_lists() {
	python3 - "$T/d.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(f"{k}:{len(d[k])}" for k in ("new", "gone", "grown")))
for k in ("new", "gone", "grown"):
    for r in d[k]:
        print(k, r["class"], r["bytes"], r["frames"][0]["function"])
PY
}

t_diff_runs() {
	need_libmtrace || return
	local r prog=$BUILD/ci_leaks
	for r in old1 old2 new1; do
		traced $r.log "$prog" ${r%[0-9]} >out 2>err ||
			{ fail "ci_leaks $r: status $?"; return 1; }
	done
	[ "$(grep '^#m 0 ' old1.log | cut -d' ' -f3)" != "$(grep '^#m 0 ' old2.log | cut -d' ' -f3)" ] ||
		note "the two runs loaded the program at the same address (ASLR off?)"
	# The same behaviour twice: nothing new, nothing gone, status 0.
	diff_check 0 --diff "$prog" old1.log old2.log || return 1
	grep -q '^DIFF SUMMARY: 0 new, 0 gone, 0 grown$' d.out ||
		{ fail "same runs: $(tail -1 d.out)"; return 1; }
	diff_check 0 --json --diff "$prog" old1.log old2.log || return 1
	[ "$(diff_lists)" = "new:0 gone:0 grown:0" ] || { fail "same runs: $(diff_lists)"; return 1; }
	# One more leak: exactly it is new, status 1.
	diff_check 1 --diff "$prog" old1.log new1.log || return 1
	grep -q '^DIFF SUMMARY: 1 new, 0 gone, 0 grown (new leaks of the --fail-on classes)$' d.out &&
		grep -q '^1,301 bytes in 1 blocks are definitely lost (new)$' d.out &&
		grep -q '^    #0 leak_session at .*ci_leaks.c:' d.out ||
		{ fail "new leak not named:"; cat d.out; return 1; }
	diff_check 1 --json --diff "$prog" old1.log new1.log || return 1
	[ "$(diff_lists | paste -sd'|')" = "new:1 gone:0 grown:0|new definitely-lost 1301 leak_session" ] ||
		{ fail "JSON: $(diff_lists)"; return 1; }
	# The other way round: it is gone, which fails nothing.
	diff_check 0 --json --diff "$prog" new1.log old1.log || return 1
	[ "$(diff_lists | paste -sd'|')" = "new:0 gone:1 grown:0|gone definitely-lost 1301 leak_session" ] ||
		{ fail "reversed: $(diff_lists)"; return 1; }
	# --fail-on decides which new leaks fail.
	diff_check 0 --fail-on=possible --diff "$prog" old1.log new1.log || return 1
	# Bad use: one log, a missing log, an option that does not go with it.
	diff_check 2 --diff old1.log || return 1
	diff_check 2 --diff old1.log missing.log || return 1
	grep -q 'missing.log' d.err || { fail "missing log not named: $(cat d.err)"; return 1; }
	diff_check 2 --diff --valgrind old1.log new1.log || return 1
}

# preview_of FUNCTION: "TEXT|TYPE" of the loss record allocated in
# FUNCTION, from --json's output in d.out.
preview_of() {
	python3 - "$T/d.out" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["loss_records"]:
    if any(f["function"] and f["function"].startswith(sys.argv[2] + "(")
           for f in r["frames"]):
        p = r.get("preview")
        print(f'{p["text"] if p else None}|{r.get("type")}')
PY
}

t_block_preview() {
	need_libmtrace || return
	local prog=$BUILD/block_preview
	traced bp.log "$prog" >out 2>err || { fail "block_preview: status $?"; return 1; }
	# One "#w" record per definitely lost stack, the objects' first word
	# as module and offset.
	[ "$(grep -c '^#w ' bp.log)" -eq 3 ] || { fail "want 3 #w records:"; grep '^#w' bp.log; return 1; }
	[ "$(grep -c '^#w 0x[0-9a-f]* 16 [0-9a-f]\{32\} [0-9]*:0x[0-9a-f]*$' bp.log)" -eq 2 ] ||
		{ fail "the objects' records name no module"; grep '^#w' bp.log; return 1; }
	# glibc's checker ignores the records: the same report, no warning.
	/usr/bin/mtrace "$prog" bp.log >perl.out 2>perl.err
	grep -v '^#w ' bp.log >nob.log
	/usr/bin/mtrace "$prog" nob.log >perl-nob.out 2>&1
	[ ! -s perl.err ] || { fail "mtrace(1) warns: $(head -3 perl.err)"; return 1; }
	cmp -s perl.out perl-nob.out || { fail "mtrace(1) reads the #w records"; return 1; }
	diff_check 1 --json "$prog" bp.log || return 1
	[ "$(preview_of leak_text)" = "Hello, leaked world!............|None" ] ||
		{ fail "leak_text: $(preview_of leak_text)"; return 1; }
	# The type follows the last '|': the preview's text is the object's
	# bytes, and its vtable pointer may hold a '|' (0x7c) under ASLR.
	local p
	p=$(preview_of leak_widget)
	[ "${p##*|}" = Widget ] || { fail "leak_widget: $p"; return 1; }
	p=$(preview_of leak_gadget)
	[ "${p##*|}" = shop::Gadget ] || { fail "leak_gadget: $p"; return 1; }
	# Malformed records are counted and skipped, never fatal.
	{ cat bp.log; printf '%s\n' '#w 0x10 3 abcd' '#w 0x10 33 00' '#w zz 1 00' '#w 0x10 1 0g'; } >bad.log
	diff_check 1 --json "$prog" bad.log || return 1
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["totals"]["bad_records"] != 4)' d.out ||
		{ fail "malformed #w records not counted"; return 1; }
	diff_check 1 "$prog" bp.log || return 1
	grep -q '^  first 32 bytes: 48 65 6c 6c 6f .*  |Hello, leaked world!\.*|$' d.out &&
		grep -q '^  type Widget (from its vtable)$' d.out &&
		grep -q '^  type shop::Gadget (from its vtable)$' d.out ||
		{ fail "text report:"; cat d.out; return 1; }
}
