#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# ab.py - two builds of libmtrace on one traced command, run alternately
# (A B B A A B ...) so that the machine's drift falls on both alike; prints
# the median wall and CPU time of each and B's difference from A.  Used for
# the before/after figures in bench/RESULTS.md: `make bench` compares
# against the peers, this compares a change against its parent.
#
# Copyright (C) 2026 the libmtrace authors.
#
# Usage: bench/ab.py [--runs N] [--log PATH] LIB_A LIB_B CMD [ARGS...]
#   --runs: pairs of runs (15)
#   --log:  MALLOC_TRACE of every run, removed before each (/tmp/ab.log)
# Example (the parent commit built in a worktree at /tmp/base):
#   bench/ab.py /tmp/base/libmtrace/libmtrace.so libmtrace/libmtrace.so \
#       bench/wl realloc 1000000

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def run_once(lib, log, cmd):
    """Wall and CPU seconds of one traced run of CMD."""
    try:
        os.unlink(log)
    except FileNotFoundError:
        pass
    env = dict(os.environ, MALLOC_TRACE=log, LD_PRELOAD=lib)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("ab.py: %s exited with %d under %s" % (cmd[0], r.returncode,
                                                       lib))
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime +
                                               before.ru_stime)
    return wall, cpu


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--log", default="/tmp/ab.log")
    p.add_argument("lib_a")
    p.add_argument("lib_b")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if not a.cmd:
        p.error("no command to run")
    for lib in (a.lib_a, a.lib_b):
        if not os.path.isfile(lib):
            p.error("no such library: %s" % lib)
    times = {a.lib_a: ([], []), a.lib_b: ([], [])}
    for i in range(a.runs):
        # A B, then B A: a cost that falls on whichever runs second (the
        # previous log's pages still being written back) falls on both.
        order = (a.lib_a, a.lib_b) if i % 2 == 0 else (a.lib_b, a.lib_a)
        for lib in order:
            wall, cpu = run_once(os.path.abspath(lib), a.log, a.cmd)
            times[lib][0].append(wall)
            times[lib][1].append(cpu)
    try:
        os.unlink(a.log)
    except FileNotFoundError:
        pass
    out = []
    for i, what in enumerate(("wall", "cpu")):
        x = statistics.median(times[a.lib_a][i])
        y = statistics.median(times[a.lib_b][i])
        out.append("%s A %.4f B %.4f (%+.1f%%)" % (what, x, y,
                                                   100 * (y - x) / x))
    print("%s: %s  [%d pairs, medians]" % (" ".join(a.cmd), "; ".join(out),
                                            a.runs))


if __name__ == "__main__":
    main()
