#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# benchscan.py - run-bench.py's reachability-scan bench (the cost of a
# scan by heap size) and the perf profile of a traced run (--profile).
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

# -------------------------------------------------------- reachability scan

SCANHEAP = os.path.join(BENCH, "scanheap")


def exit_phase(tmp):
    """Seconds from scanheap's "exit-start" stamp to the end of its run
    (both CLOCK_MONOTONIC): what the exit-time leak check cost."""
    with open(os.path.join(tmp, "stdout")) as f:
        m = re.search(r"exit-start ([\d.]+)", f.read())
    return None if not m else time.monotonic() - float(m.group(1))


def report_value(tmp, key):
    """KEY's value in the exit report scanheap wrote under libmtrace."""
    for name in os.listdir(tmp):
        if name.startswith("report"):
            with open(os.path.join(tmp, name)) as f:
                for line in f:
                    if line.startswith(key + " "):
                        return float(line.split()[1])
    return None


def scan_bench(args, tmp):
    """The reachability scan of a heap of 1M live blocks (>= 200 MB) while
    8 threads wait: libmtrace's exit report (its own figures, and the time
    from exit() to the end of the process) next to LeakSanitizer's exit
    check of the same program, and native exit.  Interleaved runs."""
    blocks = max(1000, int(1_000_000 * args.scale))
    argv = [SCANHEAP, str(blocks), "8"]
    print("## Reachability scan: %d live blocks (~%d MB), 8 threads\n"
          % (blocks, blocks * 256 >> 20))
    cfgs = [Config("native"),
            Config("ours", {"LD_PRELOAD": OURS, "MEMLEAK_CONFIG":
                            "mtraceinit,report={tmp}/report.%p"},
                   needs=[OURS]),
            Config("lsan", {"LD_PRELOAD": LSAN,
                            "LSAN_OPTIONS": "detect_leaks=1:exitcode=0"},
                   needs=[LSAN])]
    got = {}
    for _ in range(args.runs):
        for c in cfgs:
            if not c.available():
                continue
            clear_logs(tmp)
            r = run_one(c, argv, tmp)
            row = got.setdefault(c.name, {"exit": [], "scan": [], "cpu": [],
                                          "rss": []})
            if r.status != 0:
                continue
            row["exit"].append(exit_phase(tmp))
            row["rss"].append(r.maxrss_kb)
            if c.name == "ours":
                row["scan"].append(report_value(tmp, "scan-seconds"))
                row["cpu"].append(report_value(tmp, "scan-cpu-seconds"))
    clear_logs(tmp)

    def spread(xs):
        xs = [x for x in xs if x is not None]
        if not xs:
            return "n/a"
        return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))
    rows = []
    for c in cfgs:
        row = got.get(c.name)
        if not row:
            rows.append([c.name, "n/a", "n/a", "n/a", "n/a"])
            continue
        rss = [x / 1024 for x in row["rss"]]
        rows.append([c.name, spread(row["exit"]), spread(row["scan"]),
                     spread(row["cpu"]),
                     "%.0f" % statistics.median(rss) if rss else "n/a"])
    table(["config", "exit() to end, s", "scan (report), s",
           "scan CPU, s", "peak RSS MiB"], rows)
    ours = got.get("ours", {}).get("scan", [])
    ours = [x for x in ours if x is not None]
    med = statistics.median(ours) if ours else None
    full = blocks >= 1_000_000
    print("Target: the scan of 1M blocks under 1 s: %s (median %s s over %d"
          " runs; %s)\n" % (verdict(med, 1.0) if full else "n/a (scale < 1)",
                             fmt(med), len(ours), loadavg()))
    print("(medians, min-max in brackets; 'scan' is the world-stopped time"
          " libmtrace's report gives,\n'scan CPU' the scanning thread's CPU"
          " time, less disturbed by other load.)\n")


# ---------------------------------------------------------------- profiling

def profile(args, tmp):
    """perf record -g of the stack-logging run (one thread, two threads,
    many live blocks); prints the top symbols.  The tracer's variables go
    through env(1) so perf itself is untraced."""
    cfg = next(c for c in CONFIGS if c.name == "ours-stacks")
    if not cfg.available() or not shutil.which("perf"):
        print("## perf profile of ours-stacks: n/a (library or perf missing)\n")
        return
    n = str(max(1, int(1_000_000 * args.scale)))
    for cmd in (["./wl", "pairs", n, "1"], ["./wl", "pairs", n, "2"],
                ["./wl", "live", n]):
        print("## perf profile of ours-stacks, `%s`\n" % " ".join(cmd))
        data = os.path.join(tmp, "perf.data")
        rec = ["perf", "record", "-q", "-g", "-o", data, "--", "env"] + \
            cfg.settings(tmp) + cmd
        r = run_one(Config("perf"), rec, tmp)
        if r.status != 0:
            print("perf record failed (exit %d)\n" % r.status)
            continue
        print_perf_report(data, tmp)
        clear_logs(tmp)


def print_perf_report(data, tmp):
    """Self time by library, then by function (entries >= 1%)."""
    print("```")
    for line in perf_report(data, tmp, "dso"):
        print(line)
    print()
    for pct, dso, name in by_function(perf_report(data, tmp, "dso,symbol")):
        if pct >= 1.0:
            print("%8.2f%%  %-22s %s" % (pct, dso, name))
    print("```\n")


def perf_report(data, tmp, sort):
    rep = ["perf", "report", "-i", data, "--no-children", "--stdio",
           "--sort", sort, "-g", "none", "--percent-limit", "0.05"]
    txt = os.path.join(tmp, "perf.txt")
    spawn_timed(rep, txt, os.path.join(tmp, "stderr"))
    with open(txt) as f:
        lines = [ln.rstrip() for ln in f if ln.strip() and not ln.startswith("#")]
    # perf pads each line with empty "-" columns; drop them.
    return [re.sub(r"(\s+-)+$", "", ln) for ln in lines]


def by_function(lines):
    """Sums perf's per-address entries of stripped libraries (libunwind
    shows raw offsets) into the function that holds them; returns
    (percent, dso, function) sorted by percent."""
    total = {}
    for ln in lines:
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*)$", ln)
        if not m:
            continue
        pct, dso, sym = float(m.group(1)), m.group(2), m.group(3)
        if re.fullmatch(r"0x[0-9a-f]+", sym):
            sym = function_of(dso, int(sym, 16))
        total[(dso, sym)] = total.get((dso, sym), 0.0) + pct
    return sorted(((p, d, s) for (d, s), p in total.items()), reverse=True)


LIBDIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"]
_FUNCS = {}


def function_of(dso, off):
    """Names the function around offset `off` of a stripped library: its
    .eh_frame range, and the exported symbol there if there is one."""
    lib = next((os.path.join(d, dso) for d in LIBDIRS
                if os.path.exists(os.path.join(d, dso))), None)
    if lib not in _FUNCS:
        _FUNCS[lib] = function_ranges(lib) if lib else ([], {})
    ranges, names = _FUNCS[lib]
    for lo, hi in ranges:
        if lo <= off < hi:
            return names.get(lo, "unexported function at 0x%x" % lo)
    return "0x%x" % off


def function_ranges(lib):
    """(FDE address ranges, {address: exported name}) of lib."""
    fde = run_text(["readelf", "--debug-dump=frames", lib])
    ranges = [(int(a, 16), int(b, 16)) for a, b in
              re.findall(r"FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", fde)]
    names = {}
    for ln in run_text(["nm", "-D", "--defined-only", lib]).splitlines():
        f = ln.split()
        if len(f) == 3 and f[1] in "TtWi":
            names[int(f[0], 16)] = f[2]
    return ranges, names


def run_text(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout
    except OSError:
        return ""
