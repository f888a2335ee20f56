#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# periodic-bench.py - what a periodic scan (MEMLEAK_CONFIG=scan_every)
# costs the program, next to the scan of the same heap at exit (issue 29):
# bench/scanheap builds BLOCKS live blocks in 8 threads, then its main
# thread naps 1 ms at a time for WAIT seconds while libmtrace's thread
# scans every PERIOD seconds, then exits (the exit scan).  From the log's
# "#C cost" records (doc/format.md): each scan's wall time (us), how long
# the other threads were stopped (stop_us) and how long the program was
# kept from running (stall_us: the locks' hold for a periodic scan, the
# whole scan for the exit scan, which the exiting thread does itself); and
# from the program, the longest a 1 ms nap overran.  Prints a table per run
# and the medians over all runs: the periodic scans' stop (what a thread
# that does not allocate loses) and stall (what a thread that allocates
# during the scan may lose) against the exit scan's.  Exits 1 only when a
# run has no periodic scan or no exit scan; figures are printed, never
# compared with a limit (a loaded machine's noise is larger than the gap).
#
#   ./periodic-bench.py [--blocks N] [--runs N] [--wait S] [--period S]
#
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
OURS = os.path.join(ROOT, "libmtrace", "libmtrace.so")
SCANHEAP = os.path.join(BENCH, "scanheap")


def scans_of(log):
    """{seq: {trigger, us, stop_us, stall_us, ...}} from a log."""
    scans = {}
    with open(log, errors="replace") as f:
        for line in f:
            if not line.startswith("#C "):
                continue
            fields = line.split()
            kv = dict(x.split("=", 1) for x in fields[2:] if "=" in x)
            if fields[1] == "scan":
                scans[kv["seq"]] = {"trigger": kv.get("trigger")}
            elif fields[1] == "cost" and kv.get("seq") in scans:
                scans[kv["seq"]].update(
                    {k: int(v) for k, v in kv.items() if k != "seq"})
    return scans


def one_run(args, tmp):
    log = os.path.join(tmp, "heap.log")
    env = dict(os.environ, LD_PRELOAD=OURS, MALLOC_TRACE=log,
               MEMLEAK_CONFIG="mtraceinit,scan_every=%g" % args.period)
    out = subprocess.run([SCANHEAP, str(args.blocks), "8", str(args.wait)],
                         env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout
    late = float(re.search(r"max-late ([\d.]+)", out).group(1))
    scans = scans_of(log)
    os.unlink(log)
    periodic = [s for s in scans.values() if s["trigger"] == "periodic"
                and "stall_us" in s]
    exits = [s for s in scans.values() if s["trigger"] == "exit"
             and "stall_us" in s]
    return periodic, exits[-1] if exits else None, late


def ms(us):
    return "%.1f" % (us / 1e3)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--blocks", type=int, default=200000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--wait", type=float, default=3.0)
    p.add_argument("--period", type=float, default=0.5)
    args = p.parse_args()
    print("## Periodic scans vs the exit scan: %d live blocks (~%d MB), "
          "8 threads, a scan every %g s for %g s\n"
          % (args.blocks, args.blocks * 256 >> 20, args.period, args.wait))
    print("| run | periodic scans | periodic stall ms (median, max) | "
          "periodic stop ms (median) | periodic wall ms (median) | "
          "longest nap overrun ms | exit scan ms (= its stall) | "
          "median periodic stall / exit |")
    print("|---|---|---|---|---|---|---|---|")
    worse = 0
    all_stop, all_stall, all_exit = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            periodic, ex, late = one_run(args, tmp)
            if not periodic or ex is None:
                print("| %d | no periodic or exit scan cost in the log |" % run)
                worse += 1
                continue
            stalls = [s["stall_us"] for s in periodic]
            med = statistics.median(stalls)
            ratio = med / max(ex["stall_us"], 1)
            all_stall += stalls
            all_stop += [s["stop_us"] for s in periodic]
            all_exit.append(ex["stall_us"])
            print("| %d | %d | %s, %s | %s | %s | %.1f | %s | %.2f |"
                  % (run, len(periodic), ms(med), ms(max(stalls)),
                     ms(statistics.median(s["stop_us"] for s in periodic)),
                     ms(statistics.median(s["us"] for s in periodic)),
                     late, ms(ex["stall_us"]), ratio))
    print()
    if all_exit:
        ex = statistics.median(all_exit)
        print("medians over %d runs: periodic stop %s ms (%.2f of the exit "
              "scan), periodic stall %s ms (%.2f), exit scan %s ms\n"
              % (len(all_exit), ms(statistics.median(all_stop)),
                 statistics.median(all_stop) / max(ex, 1),
                 ms(statistics.median(all_stall)),
                 statistics.median(all_stall) / max(ex, 1), ms(ex)))
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
