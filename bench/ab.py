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
# Each run goes through run-bench.py's spawn_timed (bench/runit: the
# tracer settings given to the command alone, a timeout, the caller's
# tracer variables left out), as `make bench` runs; `make -C bench` builds
# runit.
#
# Usage: bench/ab.py [--runs N] [--tmp DIR] [--config C] LIB_A LIB_B CMD [ARGS...]
#   --runs: pairs of runs (15)
#   --config: MEMLEAK_CONFIG for both (mtraceinit: a program that never
#           calls mtrace(), such as clang-format)
#   --tmp:  where the log (MALLOC_TRACE, removed before each run) and the
#           command's output go (a new directory under /tmp)
# Example (the parent commit built in a worktree at /tmp/base):
#   bench/ab.py /tmp/base/libmtrace/libmtrace.so libmtrace/libmtrace.so \
#       bench/wl realloc 1000000

import argparse
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))


def load_run_bench():
    """run-bench.py as a module (its name is not an identifier)."""
    spec = importlib.util.spec_from_file_location(
        "run_bench", os.path.join(BENCH, "run-bench.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_once(rb, lib, tmp, cmd, config):
    """Wall and CPU seconds of one traced run of CMD."""
    log = os.path.join(tmp, "log")
    if os.path.exists(log):
        os.unlink(log)
    r = rb.spawn_timed(cmd, os.path.join(tmp, "stdout"),
                       os.path.join(tmp, "stderr"),
                       ["MALLOC_TRACE=" + log, "LD_PRELOAD=" + lib] +
                       (["MEMLEAK_CONFIG=" + config] if config else []))
    if r.status != 0:
        sys.exit("ab.py: %s exited with %d under %s (stderr in %s)" %
                 (cmd[0], r.status, lib, tmp))
    return r.wall, r.cpu


def main():
    p = argparse.ArgumentParser(
        description="Two builds of libmtrace on one traced command.")
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--tmp")
    p.add_argument("--config")
    p.add_argument("lib_a")
    p.add_argument("lib_b")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if not a.cmd:
        p.error("no command to run")
    libs = [os.path.abspath(lib) for lib in (a.lib_a, a.lib_b)]
    for lib in libs:
        if not os.path.isfile(lib):
            p.error("no such library: %s" % lib)
    rb = load_run_bench()
    if not os.access(rb.RUNIT, os.X_OK):
        p.error("%s is missing: run `make -C bench` first" % rb.RUNIT)
    tmp = a.tmp or tempfile.mkdtemp(prefix="mtrace-ab.")
    os.makedirs(tmp, exist_ok=True)
    walls, cpus = ([], []), ([], [])  # [0]: A's runs, [1]: B's
    for i in range(a.runs):
        # A B, then B A: a cost that falls on whichever runs second (the
        # previous log's pages still being written back) falls on both.
        for which in ((0, 1) if i % 2 == 0 else (1, 0)):
            wall, cpu = run_once(rb, libs[which], tmp, a.cmd, a.config)
            walls[which].append(wall)
            cpus[which].append(cpu)
    if not a.tmp:
        shutil.rmtree(tmp)
    out = []
    for what, xs in (("wall", walls), ("cpu", cpus)):
        x, y = statistics.median(xs[0]), statistics.median(xs[1])
        out.append("%s A %.4f B %.4f (%+.1f%%)" % (what, x, y,
                                                   100 * (y - x) / x))
    print("%s: %s  [%d pairs, medians]" % (" ".join(a.cmd), "; ".join(out),
                                            a.runs))


if __name__ == "__main__":
    main()
