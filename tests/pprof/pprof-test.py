#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# pprof-test.py - mtrace-check --pprof read by its real consumer, go tool
# pprof (Debian's golang-go; installed by scripts/install-deps.sh for this
# test only).  A traced program (progs/leaky.c) leaks in every way the
# checker tells apart; its profile must show, for each sample type, the
# figures the checker itself reports:
#   - leaked_space (the default) and leaked_objects: per function, flat and
#     cumulative, the definitely, indirectly and possibly lost blocks of
#     --json's "leaks" (no suppression); each class alone (-tagfocus on the
#     leak_class label) is --json's totals.classes;
#   - inuse_space and inuse_objects: every block --json lists as live;
#   - alloc_space: --folded=all's stacks; alloc_objects: the program's own
#     counts;
#   - an inlined function (make_node) holds its bytes itself, its caller
#     only cumulatively;
#   - without verdicts (reach=0) the leaks are the blocks live at the end;
#     a sampled log's values are the report's estimates (--json's groups);
#     a classic log (glibc's tracer) has one "[no stack recorded]" node;
#   - the report on standard output is the one without --pprof, byte for
#     byte; an unwritable FILE or several logs give status 2.
# Ends with "N passed, N failed".  GPL-3.0-or-later.

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
import tally  # noqa: E402
from tally import check  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(ROOT, "mtrace-check", "mtrace-check")
LIB = os.path.join(ROOT, "libmtrace", "libmtrace.so")
LEAKY = os.path.join(HERE, "build", "leaky")
GLIBC_TRACER = "/lib/x86_64-linux-gnu/libc_malloc_debug.so"
LOST = ("definitely-lost", "indirectly-lost", "possibly-lost")



def run(argv, env=None, **kw):
    return subprocess.run(argv, capture_output=True, timeout=300,
                          env=env, **kw)


def traced(log, preload=LIB, config=None):
    env = dict(os.environ, MALLOC_TRACE=log, LD_PRELOAD=preload)
    if config:
        env["MEMLEAK_CONFIG"] = config
    r = run([LEAKY], env=env)
    if r.returncode != 0:
        sys.exit("leaky failed: %s" % r.stderr.decode())


def go_env(tmp):
    # go wants a home and a build cache even for "go tool": a fresh one.
    return dict(os.environ, HOME=tmp, GOCACHE=os.path.join(tmp, "gocache"),
                GOPATH=os.path.join(tmp, "gopath"))


def pprof_top(env, profile, *args):
    """go tool pprof -top: {function: [flat, cum]}, the total shown, the
    sample type."""
    r = run(["go", "tool", "pprof", "-top", "-nodefraction=0",
             "-nodecount=100000"] + list(args) + [profile], env=env)
    out = r.stdout.decode()
    if r.returncode != 0:
        return None, None, "go tool pprof failed: " + r.stderr.decode()
    rows, total, typ, table = {}, None, None, False
    for line in out.splitlines():
        if line.startswith("Type: "):
            typ = line[6:]
        elif line.startswith("Showing nodes accounting for"):
            # "... accounting for SHOWN, P% of TOTAL total": what the
            # focus kept (every node is shown: -nodefraction=0)
            total = value(line.split("accounting for ")[1].split(",")[0])
        elif line.split()[:2] == ["flat", "flat%"]:
            table = True
        elif table and line.strip():
            f = line.split(None, 5)
            name = f[5]
            if name.endswith(" (inline)"):
                name = name[:-len(" (inline)")]
            row = rows.setdefault(name, [0, 0])
            row[0] += value(f[0])
            row[1] += value(f[3])
    return rows, total, typ


def value(text):
    return int(text[:-1]) if text.endswith("B") else int(text)


def frame_name(fr):
    """A frame as the profile names it (pprof.c: the function, else the
    module's file name and offset, else the address)."""
    if fr["function"]:
        return fr["function"]
    if fr["module"]:
        return "%s+%s" % (os.path.basename(fr["module"]), fr["offset"])
    return fr["offset"]


def expected(stacks):
    """{function: [flat, cum]} for (names innermost first, weight) pairs."""
    rows = {}
    for names, w in stacks:
        if w == 0:
            continue
        rows.setdefault(names[0], [0, 0])[0] += w
        for n in set(names):
            rows.setdefault(n, [0, 0])[1] += w
    return rows


def from_leaks(leaks, weight, keep=lambda leak: True):
    return expected(([frame_name(f) for f in leak["stack"]]
                     or ["[no stack recorded]"], weight(leak))
                    for leak in leaks if keep(leak))


def from_folded(text):
    stacks = []
    for line in text.splitlines():
        frames, w = line.rsplit(" ", 1)
        names = [n[:-len(" [inlined]")] if n.endswith(" [inlined]") else n
                 for n in frames.split(";")]
        stacks.append((names[::-1], int(w)))
    return expected(stacks)


def nonzero(rows):
    return {k: v for k, v in rows.items() if v != [0, 0]}


def same(name, got, want):
    check(name, got == want, "\n  pprof:   %s\n  checker: %s" % (got, want))


def is_lost(leak):
    return leak.get("class") in LOST and leak.get("suppressed_by") is None


def test_verdicts(tmp, env):
    log = os.path.join(tmp, "leaky.log")
    prof = os.path.join(tmp, "leaky.pb.gz")
    traced(log)
    plain = run([CHECKER, LEAKY, log])
    r = run([CHECKER, "--pprof", prof, LEAKY, log])
    check("--pprof: status 1 (definite leaks), as without it",
          r.returncode == 1 == plain.returncode, r.stderr.decode())
    check("--pprof: the report is unchanged", r.stdout == plain.stdout)
    with open(prof, "rb") as f:
        check("the profile is gzipped", f.read(2) == b"\x1f\x8b")
    j = json.loads(run([CHECKER, "--json", LEAKY, log]).stdout)
    leaks = j["leaks"]

    rows, total, typ = pprof_top(env, prof, "-unit=B")
    check("default sample type: leaked_space", typ == "leaked_space", typ)
    want = from_leaks(leaks, lambda b: b["size"], is_lost)
    same("leaked_space by function (flat, cum)", rows, want)
    for fn, flat in (("lose_buffer", 3000), ("make_node", 320),
                     ("hold_middle", 500)):
        check("leaked_space: %s %d bytes" % (fn, flat),
              rows and rows.get(fn, [0])[0] == flat, rows)
    check("leaked_space: lose_copy 100 bytes through strdup",
          rows and rows.get("lose_copy") == [0, 100], rows)
    check("leaked_space: make_node (inlined) holds them, lose_tree only "
          "cumulatively", rows and rows.get("lose_tree") == [0, 320], rows)
    rows, _, _ = pprof_top(env, prof, "-sample_index=leaked_objects")
    same("leaked_objects by function",
         rows, from_leaks(leaks, lambda b: 1, is_lost))

    classes = j["totals"]["classes"]
    for cls in LOST:
        rows, total, _ = pprof_top(env, prof, "-unit=B",
                                   "-tagfocus=leak_class=" + cls)
        key = cls.replace("-", "_")
        check("leak_class=%s: %s bytes" % (cls, classes[key]["bytes"]),
              total == classes[key]["bytes"], total)

    rows, _, _ = pprof_top(env, prof, "-unit=B", "-sample_index=inuse_space")
    same("inuse_space by function", rows,
         from_leaks(leaks, lambda b: b["size"]))
    rows, _, _ = pprof_top(env, prof, "-sample_index=inuse_objects")
    same("inuse_objects by function", rows, from_leaks(leaks, lambda b: 1))

    folded = run([CHECKER, "--folded=all", LEAKY, log]).stdout.decode()
    rows, _, _ = pprof_top(env, prof, "-unit=B", "-sample_index=alloc_space")
    same("alloc_space by function", rows, from_folded(folded))
    rows, _, _ = pprof_top(env, prof, "-sample_index=alloc_objects")
    counts = {"churn": 50, "keep": 4, "make_node": 4, "lose_buffer": 1,
              "hold_middle": 1}
    check("alloc_objects: the program's counts",
          rows and all(rows.get(k, [0])[0] == v for k, v in counts.items()),
          rows)


def test_no_verdicts(tmp, env):
    log = os.path.join(tmp, "reach0.log")
    prof = os.path.join(tmp, "reach0.pb.gz")
    traced(log, config="reach=0")
    run([CHECKER, "--pprof", prof, LEAKY, log])
    j = json.loads(run([CHECKER, "--json", LEAKY, log]).stdout)
    rows, total, _ = pprof_top(env, prof, "-unit=B")
    same("reach=0: the leaks are the blocks live at the end", rows,
         from_leaks(j["leaks"], lambda b: b["size"]))
    check("reach=0: leaked_space total is --json's leaked_bytes",
          total == j["totals"]["leaked_bytes"], total)


def test_sampled(tmp, env):
    log = os.path.join(tmp, "sampled.log")
    prof = os.path.join(tmp, "sampled.pb.gz")
    traced(log, config="sample=256,seed=7")
    run([CHECKER, "--pprof", prof, LEAKY, log])
    j = json.loads(run([CHECKER, "--json", LEAKY, log]).stdout)
    groups = [([frame_name(f) for f in g["frames"]] or ["[no stack recorded]"],
               g) for g in j["groups"]]
    rows, _, _ = pprof_top(env, prof, "-unit=B")
    same("sampled: leaked_space is the report's estimates", rows,
         expected((n, g["bytes"]) for n, g in groups))
    rows, _, _ = pprof_top(env, prof, "-sample_index=leaked_objects")
    same("sampled: leaked_objects is the report's estimates", rows,
         expected((n, g["blocks"]) for n, g in groups))
    # Blocks of the rate or more are always recorded: exact figures.
    rows, _, _ = pprof_top(env, prof, "-unit=B", "-sample_index=alloc_space")
    check("sampled: alloc_space of keep (4 x 256) and lose_buffer exact",
          rows and rows.get("keep", [0])[0] == 1024 and
          rows.get("lose_buffer", [0])[0] == 3000, rows)


def test_classic(tmp, env):
    if not os.path.exists(GLIBC_TRACER):
        check("classic log (glibc's tracer is missing)", False)
        return
    log = os.path.join(tmp, "glibc.log")
    prof = os.path.join(tmp, "glibc.pb.gz")
    traced(log, preload=GLIBC_TRACER)
    run([CHECKER, "--pprof", prof, LEAKY, log])
    j = json.loads(run([CHECKER, "--json", LEAKY, log]).stdout)
    rows, total, _ = pprof_top(env, prof, "-unit=B")
    want = j["totals"]["leaked_bytes"]
    same("classic log: one node without a stack", rows,
         {"[no stack recorded]": [want, want]})


def test_errors(tmp):
    log = os.path.join(tmp, "leaky.log")
    r = run([CHECKER, "--pprof", "/nonexistent/dir/p.pb.gz", LEAKY, log])
    check("unwritable FILE: status 2, told",
          r.returncode == 2 and b"cannot write the profile" in r.stderr,
          r.stderr.decode())
    r = run([CHECKER, "--pprof", os.path.join(tmp, "two.pb.gz"), LEAKY, log,
             log])
    check("--pprof with two logs: status 2",
          r.returncode == 2 and b"--pprof takes one log" in r.stderr,
          r.stderr.decode())
    r = run([CHECKER, "--pprof=", LEAKY, log])
    check("--pprof= (empty): status 2", r.returncode == 2, r.stderr.decode())


def main():
    if shutil.which("go") is None:
        check("go tool pprof is installed (scripts/install-deps.sh: "
              "golang-go)", False)
        return tally.summary()
    tmp = tempfile.mkdtemp(prefix="mtrace-pprof.")
    env = go_env(tmp)
    test_verdicts(tmp, env)
    test_no_verdicts(tmp, env)
    test_sampled(tmp, env)
    test_classic(tmp, env)
    test_errors(tmp)
    if tally.failed:
        print("kept: " + tmp)
    else:
        shutil.rmtree(tmp)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
