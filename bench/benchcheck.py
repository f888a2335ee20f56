#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# benchcheck.py - run-bench.py's checker comparison: mtrace-check against
# glibc's mtrace on the bench's logs (time, memory, same output).
#
# Copyright (C) 2026 the libmtrace authors.
# flake8: noqa: F403,F405

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from benchlib import *
from benchreport import *

# ---------------------------------------------------------- checker compare

def checker_compare(args, tmp):
    """Times mtrace-check against glibc's Perl mtrace on large logs of the
    two-thread workload: one with stacks (ours) and one classic (glibc's),
    and compares their outputs and exit statuses.  Also the floor (reading
    the file alone), mtrace-check on one thread, and its peak RSS on big
    logs."""
    print("## mtrace-check vs /usr/bin/mtrace\n")
    n = max(1, int(1_000_000 * args.scale))
    rows, floors, stack_log = [], [], None
    for cname in ("ours-stacks", "glibc"):
        src = next(c for c in CONFIGS if c.name == cname)
        if src.available():
            rows += compare_on_log(args, tmp, src, n, floors)
            if cname == "ours-stacks":
                stack_log = keep_log(tmp, "stack-log")
        clear_logs(tmp)
    table(["log", "lines", "/usr/bin/mtrace s", "mtrace-check s",
           "1 thread s", "speed-up", "target", "", "output", ""], rows)
    print("Output rule: identical stdout and exit status; on a log with stacks"
          " mtrace-check may\nonly append its documented 'Leaks grouped by"
          " allocation stack' section.\n")
    table(["log", "MB", "cat s", "wc -l s", "mtrace-check s",
           "mtrace-check / cat"], floors)
    print("Floor: `cat LOG > /dev/null` reads the file, `wc -l LOG` reads it"
          " and finds every line\n(medians of %d runs, spread in"
          " parentheses).\n" % args.checker_runs)
    if stack_log and args.checker_big:
        checker_memory(args, tmp, stack_log)
        os.unlink(stack_log)


def keep_log(tmp, name):
    path = os.path.join(tmp, name)
    os.replace(os.path.join(tmp, "log"), path)
    return path


def median_range(xs):
    """"median (min-max)" of a checker's times."""
    return "%s (%s-%s)" % (fmt(statistics.median(xs)), fmt(min(xs)),
                           fmt(max(xs)))


def compare_on_log(args, tmp, src, n, floors):
    """One table row: both checkers on the log `src` writes for wl pairs."""
    if src.name.startswith("ours"):
        # The output rule is about glibc's format: a log without
        # reachability verdicts (those are reported by class instead).
        src = Config(src.name, dict(src.env, MEMLEAK_CONFIG="reach=0"),
                     log=src.log, needs=src.needs)
    r = run_one(src, ["./wl", "pairs", str(n), "2"], tmp)
    log = os.path.join(tmp, "log")
    if r.status != 0 or not os.path.exists(log):
        return [[src.name, "could not write the log (exit %d)" % r.status]
                + [""] * 8]
    times, outs = time_checkers(args.checker_runs, log, tmp)
    perl, ours, one = (statistics.median(times[k]) if k in times else None
                       for k in ("/usr/bin/mtrace", "mtrace-check",
                                 "mtrace-check 1 thread"))
    speed = ratio(perl, ours)
    same = same_output(outs)
    floors.append([src.name, "%.0f" % (os.path.getsize(log) / 1e6),
                   median_range(times["cat"]), median_range(times["wc -l"]),
                   median_range(times["mtrace-check"]),
                   fmt(ratio(ours, statistics.median(times["cat"])), "%.1fx")])
    return [[src.name, count_lines(log), median_range(times["/usr/bin/mtrace"]),
             median_range(times["mtrace-check"]), fmt(one), fmt(speed, "%.1fx"),
             ">= 25x", verdict(speed, 25, le=False),
             {None: "n/a", True: "same", False: "DIFFERENT"}[same],
             {None: "n/a", True: "PASS", False: "FAIL"}[same]]]


def count_lines(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


CHECKERS = [("/usr/bin/mtrace", [GLIBC_MTRACE, "BIN", "LOG"], ()),
            ("mtrace-check", [CHECKER, "BIN", "LOG"], ()),
            ("mtrace-check 1 thread", [CHECKER, "BIN", "LOG"],
             ("MTRACE_CHECK_THREADS=1",)),
            ("cat", ["cat", "LOG"], ()),
            ("wc -l", ["wc", "-l", "LOG"], ())]


def time_checkers(runs, log, tmp):
    """Alternates the checkers and the floor commands; keeps each
    checker's first output."""
    times, outs = {}, {}
    for _ in range(runs):
        for name, argv, settings in CHECKERS:
            if not os.path.exists(argv[0]) and "/" in argv[0]:
                continue
            argv = [{"BIN": os.path.join(BENCH, "wl"), "LOG": log}.get(a, a)
                    for a in argv]
            # The floor commands write to /dev/null, as their doc says: a
            # copy of the log written into tmp left writeback running
            # into the next checker's run.
            base = os.path.join(tmp, "out-" + os.path.basename(argv[0]) +
                                ("-1" if settings else ""))
            out = os.devnull if name in ("cat", "wc -l") else base
            r = spawn_timed(argv, out, os.path.join(tmp, "stderr"), settings,
                            res=base + ".runit")
            times.setdefault(name, []).append(r.wall)
            if name in ("/usr/bin/mtrace", "mtrace-check") and name not in outs:
                with open(out, "rb") as f:
                    outs[name] = (r.status, f.read())
                keep_output(out, log)
    return times, outs


def checker_memory(args, tmp, stack_log):
    """Peak RSS of mtrace-check on logs of 1 and 2 GB (the stack log
    repeated), plain and read through a pipe: memory must follow the live
    blocks and the distinct stacks, not the size of the log."""
    rows = []
    for gb in args.checker_big:
        big = os.path.join(tmp, "big-log")
        want = int(gb * 1e9)
        with open(stack_log, "rb") as f:
            chunk = f.read()
        with open(big, "wb") as f:
            size = 0
            while size < want:
                f.write(chunk)
                size += len(chunk)
        for how, argv in (("file", [CHECKER, os.path.join(BENCH, "wl"), big]),
                          ("stdin", ["/bin/sh", "-c",
                                     "exec %s %s - < %s" % (CHECKER,
                                                           os.path.join(BENCH, "wl"), big)])):
            r = spawn_timed(argv, os.path.join(tmp, "out-big"),
                            os.path.join(tmp, "stderr"))
            rows.append(["%.2f GB (%d copies of the stack log)" % (size / 1e9, size // len(chunk)),
                         how, fmt(r.wall), "%.1f" % (r.maxrss_kb / 1024.0),
                         "< 100", verdict(r.maxrss_kb / 1024.0, 100)])
        os.unlink(big)
    print("### mtrace-check peak RSS on big logs\n")
    table(["log", "read from", "wall s", "peak RSS MB", "target MB", ""], rows)
    print()


def keep_output(out, log):
    """Keeps each checker's output next to the bench for a later diff."""
    with open(log, "rb") as f:
        kind = "stacks" if b"\n#s " in f.read(1 << 16) else "classic"
    shutil.copy(out, os.path.join(BENCH, "last-%s.%s.txt"
                                  % (os.path.basename(out), kind)))


def same_output(outs):
    """True if the checkers agree (see the output rule), None if one is
    missing."""
    if len(outs) < 2:
        return None
    (s1, perl), (s2, ours) = outs["/usr/bin/mtrace"], outs["mtrace-check"]
    if s1 != s2 or not ours.startswith(perl):
        return False
    extra = ours[len(perl):]
    return extra == b"" or extra.startswith(b"\nLeaks grouped by allocation stack")
