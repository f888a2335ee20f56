#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# run-bench.py - times the bench workloads natively and under each tracer,
# interleaved, and prints medians, overhead ratios against the targets of
# issue 5, log bytes per event, peak RSS and the checker comparison.
#
# Copyright (C) 2026 the libmtrace authors.
#
# Usage: run-bench.py [--runs N] [--slow-runs N] [--scale F] [--vg-fraction F]
#                     [--only W1,W2] [--configs C1,C2] [--tmp DIR]
#                     [--profile] [--no-checker]
# Tools or libraries that are missing (or fail a smoke test) print "n/a".

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import *      # noqa: E402,F403
from benchreport import *   # noqa: E402,F403
from benchcheck import *    # noqa: E402,F403
from benchscan import *     # noqa: E402,F403


# ---------------------------------------------------------------- the bench

class Bench:
    def __init__(self, args, tmp):
        self.args, self.tmp = args, tmp
        self.walls = {}      # (workload, config) -> [seconds]
        self.cpus = {}       # (workload, config) -> [CPU seconds]
        self.rss = {}        # (workload, config) -> [KiB]
        self.logs = {}       # (workload, config) -> (bytes, events)
        self.failed = {}     # (workload, config) -> [exit status, ...]
        self.errors = {}     # (workload, config) -> first failure's stderr
        self.vg_empty = {}   # workload -> [seconds] of valgrind at size 0

    def size(self, w, cfg):
        n = max(1, int(w.size * self.args.scale))
        return max(1, int(n * self.args.vg_fraction)) if cfg.reduced else n

    def smoke_test(self, configs):
        """A tiny run of each config: a library that crashes is reported as
        broken instead of failing every timed run."""
        for cfg in configs:
            if not cfg.available():
                continue
            r = run_one(cfg, WORKLOADS[0].command(100), self.tmp)
            if r.status != 0:
                cfg.broken = "smoke test exit status %d" % r.status
                print("  %s: broken (%s)" % (cfg.name, cfg.broken))
            clear_logs(self.tmp)

    def timed(self, w, cfg, first_round):
        r = run_one(cfg, w.command(self.size(w, cfg)), self.tmp)
        key = (w.name, cfg.name)
        if r.status != 0:
            self.failed.setdefault(key, []).append(r.status)
            self.errors.setdefault(key, first_lines(os.path.join(self.tmp, "stderr")))
        else:
            self.walls.setdefault(key, []).append(r.wall)
            self.cpus.setdefault(key, []).append(r.cpu)
            self.rss.setdefault(key, []).append(r.maxrss_kb)
            if first_round and (stats := log_stats(cfg, self.tmp)):
                self.logs[key] = stats
        clear_logs(self.tmp)

    def valgrind_startup(self, w, cfg):
        """Valgrind's fixed start/exit cost, measured at size 0, so the
        reduced run is extrapolated without multiplying its start-up."""
        r = run_one(cfg, w.command(0), self.tmp)
        if r.status == 0:
            self.vg_empty.setdefault(w.name, []).append(r.wall)

    def run_all(self, workloads, configs):
        """Round-robin: every config once per round, so load from other
        users of the machine spreads over all configs alike."""
        for rnd in range(self.args.runs):
            print("round %d/%d" % (rnd + 1, self.args.runs), flush=True)
            for w in workloads:
                for cfg in configs:
                    if not cfg.available():
                        continue
                    if cfg.slow and rnd >= self.args.slow_runs:
                        continue
                    self.timed(w, cfg, rnd == 0)
                    if cfg.reduced:
                        self.valgrind_startup(w, cfg)

    def median(self, w, cname, cpu=False):
        """Median wall (or CPU) time at full size (valgrind: extrapolated
        from its wall time at size 0), or None."""
        xs = (self.cpus if cpu else self.walls).get((w.name, cname))
        if not xs:
            return None
        m = statistics.median(xs)
        if cname == "valgrind" and self.vg_empty.get(w.name) and not cpu:
            t0 = statistics.median(self.vg_empty[w.name])
            m = t0 + (m - t0) / self.args.vg_fraction
        return m


# --------------------------------------------------------------------- main

def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=9, help="timed runs per config")
    p.add_argument("--slow-runs", type=int, default=3,
                   help="timed runs of the slow configs without targets "
                        "(valgrind, heaptrack-full)")
    p.add_argument("--scale", type=float, default=1.0, help="workload size factor")
    p.add_argument("--vg-fraction", type=float, default=0.1,
                   help="valgrind runs at this fraction of the size")
    p.add_argument("--checker-runs", type=int, default=5,
                   help="rounds of the checkers: mtrace-check takes 0.06 s "
                        "a run, and on a noisy 2-core VM its median of 3 "
                        "put the speed-up anywhere in 21-29x")
    p.add_argument("--only", help="comma-separated workloads")
    p.add_argument("--configs", help="comma-separated configs (native is kept)")
    p.add_argument("--tmp", help="scratch directory for logs (default: mkdtemp)")
    p.add_argument("--profile", action="store_true", help="also run perf")
    p.add_argument("--no-checker", action="store_true")
    p.add_argument("--no-scan", action="store_true",
                   help="skip the reachability scan's cost")
    p.add_argument("--checker-big", type=lambda v: [float(x) for x in v.split(",") if float(x) > 0],
                   default=[1.0, 2.0],
                   help="sizes in GB of the big logs for mtrace-check's peak RSS "
                        "(default 1,2; 0 skips)")
    return p.parse_args()


def select(items, names, keep=()):
    if not names:
        return [i for i in items if getattr(i, "default", True)]
    wanted = set(names.split(",")) | set(keep)
    return [i for i in items if i.name in wanted]


def describe(args, workloads, configs):
    print("# libmtrace bench  %s" % time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    print("runs=%d (valgrind, heaptrack-full: %d) scale=%g valgrind at %g of "
          "size (extrapolated: t0 + (t-t0)/f)"
          % (args.runs, min(args.runs, args.slow_runs), args.scale,
             args.vg_fraction))
    print("cpus=%d  %s\n" % (os.cpu_count(), loadavg()))
    for w in workloads:
        cmd = " ".join(w.command(int(w.size * args.scale)))
        print("  %-8s %-48s `%s`" % (w.name, w.what, cmd))
    for c in configs:
        print("  %-14s %s" % (c.name, "ok" if c.available() else "n/a (missing)"))
    print()


def main():
    args = parse_args()
    missing = [p for p in ("runit", "wl", "wl_cxx")
               if not os.path.exists(os.path.join(BENCH, p))]
    if missing:
        sys.exit("run-bench.py: %s not built; run `make -C bench` first"
                 % ", ".join(missing))
    workloads = select(WORKLOADS, args.only)
    configs = select(CONFIGS, args.configs, keep=["native"])
    tmp = args.tmp or tempfile.mkdtemp(prefix="mtrace-bench.")
    os.makedirs(tmp, exist_ok=True)
    describe(args, workloads, configs)
    bench = Bench(args, tmp)
    bench.smoke_test(configs)
    bench.run_all(workloads, configs)
    print()
    print("after the timed runs: %s\n" % loadavg())
    report_walls(bench, workloads, configs)
    report_failures(bench)
    report_targets(bench, workloads)
    report_logs(bench, workloads)
    report_compress(bench, workloads)
    report_rss(bench, workloads, configs)
    if not args.no_checker:
        checker_compare(args, tmp)
    if not args.no_scan and os.path.exists(SCANHEAP):
        scan_bench(args, tmp)
    if args.profile:
        profile(args, tmp)
    if not args.tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
