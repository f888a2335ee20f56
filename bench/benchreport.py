#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# benchreport.py - the tables run-bench.py prints: medians, ratios against
# the targets, threads, log bytes, compression, peak RSS.
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

# ---------------------------------------------------------------- reporting

def fmt(x, spec="%.3f", k=1):
    """x*k formatted with spec, or n/a when there is no measurement."""
    return "n/a" if x is None else spec % (x * k)


def table(header, rows):
    """A markdown table: readable in a terminal and pastable as is."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    print("\n".join(out) + "\n")


def cell(bench, w, cname):
    """The median, marked when some runs failed (exit status shown)."""
    fails = bench.failed.get((w.name, cname))
    if not fails:
        return fmt(bench.median(w, cname))
    mark = "%d fail, exit %d" % (len(fails), fails[0])
    if not bench.walls.get((w.name, cname)):
        return mark
    return "%s (%s)" % (fmt(bench.median(w, cname)), mark)


def report_failures(bench):
    """What the first failing run of each workload/config printed."""
    if not bench.errors:
        return
    print("## Failed runs\n")
    for (wname, cname), text in sorted(bench.errors.items()):
        print("%s under %s, exit %d:\n```\n%s\n```\n"
              % (wname, cname, bench.failed[(wname, cname)][0], text))


def first_lines(path, n=5):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[:n]).rstrip()
    except OSError:
        return ""


def report_walls(bench, workloads, configs):
    print("## Median wall time (s), %d runs each\n" % bench.args.runs)
    rows = [[w.name] + [cell(bench, w, c.name) for c in configs]
            for w in workloads]
    table(["workload"] + [c.name for c in configs], rows)
    print("Run-to-run spread of the wall times ((max - min) / median):\n")
    rows = [[w.name] + [spread(bench.walls.get((w.name, c.name)))
                        for c in configs] for w in workloads]
    table(["workload"] + [c.name for c in configs], rows)
    print("Slowdown vs native (wall / native wall):\n")
    rows = []
    for w in workloads:
        nat = bench.median(w, "native")
        rows.append([w.name] + [fmt(ratio(bench.median(w, c.name), nat), "%.1fx")
                                for c in configs[1:]])
    table(["workload"] + [c.name for c in configs[1:]], rows)


def spread(xs):
    """(max - min) / median of a config's runs, as a percentage."""
    if not xs or len(xs) < 2:
        return "n/a"
    return "%.0f%%" % (100 * (max(xs) - min(xs)) / statistics.median(xs))


def ratio(a, b):
    return None if a is None or not b else a / b


def overhead(bench, w, cname, cpu=False):
    t, nat = bench.median(w, cname, cpu), bench.median(w, "native", cpu)
    return None if t is None or nat is None else max(t - nat, 1e-6)


def verdict(value, target, le=True):
    if value is None:
        return "n/a"
    ok = value <= target if le else value >= target
    return "PASS" if ok else "FAIL"


# (label, our config, their config, target, workloads or None for all):
# overhead(ours) / overhead(theirs); targets of issue 15 (None: shown, no
# target).
OVERHEAD_TARGETS = [
    ("ours-stacks / glibc", "ours-stacks", "glibc", 0.35, None),
    ("ours-stacks / heaptrack", "ours-stacks", "heaptrack", 0.5, None),
    ("ours-stacks / heaptrack-full", "ours-stacks", "heaptrack-full", None,
     None),
    ("ours-stacks / lsan", "ours-stacks", "lsan", 1.0, ["live"]),
    ("ours-nolog / lsan", "ours-nolog", "lsan", None, None),
    # Issue 31 item 4: the shallow-stack live workload, live log.
    ("ours-live / heaptrack", "ours-live", "heaptrack", 0.5, ["live"]),
    ("ours-live / lsan", "ours-live", "lsan", None, ["live"]),
]
# (config, workload, target): slowdown = time / native time.
SLOWDOWN_TARGETS = [("ours-sample", "single", 1.3)]


def report_targets(bench, workloads):
    print("## Overhead ratios (time minus native), this run\n")
    rows = []
    for label, ours, theirs, target, only in OVERHEAD_TARGETS:
        for w in workloads:
            if only and w.name not in only:
                continue
            r = ratio(overhead(bench, w, ours), overhead(bench, w, theirs))
            c = ratio(overhead(bench, w, ours, True),
                      overhead(bench, w, theirs, True))
            rows.append([label, w.name, fmt(r, "%.2f"),
                         "<= %.2f" % target if target else "-",
                         verdict(r, target) if target else "",
                         fmt(c, "%.2f")])
    for cname, wname, target in SLOWDOWN_TARGETS:
        for w in workloads:
            if w.name != wname:
                continue
            r = ratio(bench.median(w, cname), bench.median(w, "native"))
            c = ratio(bench.median(w, cname, True),
                      bench.median(w, "native", True))
            rows.append(["%s / native (slowdown)" % cname, w.name,
                         fmt(r, "%.2f"), "<= %.2f" % target,
                         verdict(r, target), fmt(c, "%.2f")])
    table(["ratio", "workload", "measured", "target", "", "same in CPU time"],
          rows)
    print("(CPU time = user + system of the traced process: less disturbed"
          " by other load than\nwall time; the verdict is on wall time.)\n")
    report_threads(bench, workloads)


def report_threads(bench, workloads):
    """Throughput of 2 threads vs 1 on the same total work = t1 / t2."""
    by = {w.name: w for w in workloads}
    if "single" not in by or "threads" not in by:
        return
    print("## Two threads vs one: total throughput (t_single / t_threads)\n")
    rows = []
    for cname, target in [("native", None), ("ours-stacks", 1.3),
                          ("ours-nolog", 1.3), ("glibc", None),
                          ("heaptrack", None), ("lsan", None)]:
        r = ratio(bench.median(by["single"], cname),
                  bench.median(by["threads"], cname))
        extra = ratio(bench.median(by["threads"], cname, cpu=True),
                      bench.median(by["single"], cname, cpu=True))
        rows.append([cname, fmt(r, "%.2fx"),
                     ">= %.1fx" % target if target else "-",
                     verdict(r, target, le=False) if target else "",
                     fmt(extra, "%.2f")])
    table(["config", "throughput ratio", "target", "",
           "CPU time threads / single"], rows)
    print("(The CPU-time column is the extra work two threads cost for the"
          " same events:\nlock contention shows there even when no second"
          " core is free; 1.00 is ideal.)\n")
    native = ratio(bench.median(by["single"], "native"),
                   bench.median(by["threads"], "native"))
    if native is not None and native < 1.5:
        print("NOTE: native itself gains only %.2fx from a second thread: the"
              " machine had\nno idle second core, so these ratios say little."
              " Rerun on a quiet machine.\n" % native)


def report_logs(bench, workloads):
    print("## Log bytes per event (first round; heaptrack: raw file)\n")
    cnames = ["ours-stacks", "ours-zstd", "ours-classic", "ours-sample", "glibc",
              "heaptrack"]
    rows = []
    for w in workloads:
        row = [w.name]
        for c in cnames:
            s = bench.logs.get((w.name, c))
            row.append("n/a" if not s or not s[1] else
                       "%.1f (%d ev)" % (s[0] / s[1], s[1]))
        rows.append(row)
    table(["workload"] + cnames, rows)


def report_compress(bench, workloads):
    """What the compressed log (ours-zstd) costs and saves against the
    plain one (ours-stacks): bytes per event, wall and CPU time."""
    if not any((w.name, "ours-zstd") in bench.walls for w in workloads):
        return
    print("## Compressed log: ours-zstd against ours-stacks\n")
    rows = []
    for w in workloads:
        plain = bench.logs.get((w.name, "ours-stacks"))
        zst = bench.logs.get((w.name, "ours-zstd"))
        row = [w.name]
        row.append("n/a" if not plain or not plain[1] else
                   "%.2f" % (plain[0] / plain[1]))
        row.append("n/a" if not zst or not zst[1] else
                   "%.2f" % (zst[0] / zst[1]))
        row.append("n/a" if not plain or not zst or not zst[0] else
                   "%.1fx" % (plain[0] / zst[0]))
        for cpu in (False, True):
            a = bench.median(w, "ours-stacks", cpu)
            b = bench.median(w, "ours-zstd", cpu)
            row += [fmt(a), fmt(b),
                    "n/a" if a is None or b is None else
                    "%+.0f%%" % (100 * (b - a) / a)]
            sp = spread((bench.cpus if cpu else bench.walls)
                        .get((w.name, "ours-zstd")) or [])
            row.append(sp)
        rows.append(row)
    table(["workload", "plain B/event", "zstd B/event", "smaller",
           "wall stacks", "wall zstd", "wall +", "zstd wall spread",
           "CPU stacks", "CPU zstd", "CPU +", "zstd CPU spread"], rows)
    print("(CPU = user + system of the traced process, the compressor"
          " thread included.)\n")


def report_rss(bench, workloads, configs):
    print("## Peak RSS (MiB, median)\n")
    rows = []
    for w in workloads:
        rows.append([w.name] + [fmt(med_rss(bench, w, c.name), "%.1f", 1 / 1024)
                                for c in configs])
    table(["workload"] + [c.name + (" (reduced size)" if c.reduced else "")
                          + (" (largest process)" if c.tree else "")
                          for c in configs], rows)
    live = next((w for w in workloads if w.name == "live"), None)
    if live:
        report_live(bench, live, configs)


def med_rss(bench, w, cname):
    xs = bench.rss.get((w.name, cname))
    return statistics.median(xs) if xs else None


def report_live(bench, w, configs):
    """Bytes per live block beyond native on the workload holding `blocks`
    blocks at its peak.  'marginal' also subtracts the config's fixed cost
    (its RSS beyond native on `single`, which holds only 256 blocks), i.e.
    buffers and the stack table, which the target allows on top."""
    blocks = int(w.size * bench.args.scale)
    single = next((x for x in WORKLOADS if x.name == "single"), None)
    print("Peak RSS beyond native per live block (live workload, %d blocks):\n"
          % blocks)
    rows = []
    for c in configs[1:]:
        total = beyond_native(bench, w, c)
        fixed = beyond_native(bench, single, c)
        per = None if total is None else total / blocks
        marg = None if total is None or fixed is None else (total - fixed) / blocks
        ours = c.name.startswith("ours")
        rows.append([c.name, fmt(per, "%.1f"), fmt(marg, "%.1f"),
                     "<= 48 (marginal)" if ours else "-",
                     verdict(marg, 48) if ours else ""])
    table(["config", "bytes/block total", "bytes/block marginal", "target", ""],
          rows)


def beyond_native(bench, w, c):
    """Peak RSS of config c minus native's, in bytes (None for valgrind,
    which ran at a reduced size, and for a tree of processes)."""
    rss, nat = med_rss(bench, w, c.name), med_rss(bench, w, "native")
    if rss is None or nat is None or c.reduced or c.tree:
        return None
    return (rss - nat) * 1024
