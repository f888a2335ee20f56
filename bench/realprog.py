#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# realprog.py - a real C++ program (clang-format, linked to LLVM's and
# clang's shared libraries: 9,600 distinct allocation stacks, 1.4M events)
# natively and under libmtrace, heaptrack's preload and LeakSanitizer,
# interleaved; prints the medians, their spread and the overhead ratios.
# bench/wl's workloads have 16 to 90 stacks in a small executable; this
# shows what a program with big libraries costs, which they do not (the
# loader's dladdr() scanned libclang-cpp.so's 31k symbols per frame named:
# bench/RESULTS.md, 2026-11-26, fourth session).  glibc's tracer only
# starts at mtrace(), which clang-format never calls: it is not run.
#
# Copyright (C) 2026 the libmtrace authors.
#
# Usage: bench/realprog.py [--runs N] [--tmp DIR] [CMD ARGS...]
#   CMD: the program to run (default: clang-format of libmtrace's sources
#        concatenated, 360 KB of C); libmtrace starts at load
#        (MEMLEAK_CONFIG=mtraceinit).  `make -C bench` builds runit.

import argparse
import glob
import os
import shutil
import statistics
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
sys.dont_write_bytecode = True  # no __pycache__ in the tree
from ab import load_run_bench  # noqa: E402  (run-bench.py as a module)


def configs(rb, tmp):
    """(name, settings) of run-bench.py's configs that clang-format can
    run under; ours starts at load, the program never calling mtrace()."""
    out = []
    for c in rb.CONFIGS:
        if c.name not in ("native", "ours-stacks", "heaptrack", "lsan") \
                or not c.available():
            continue
        settings = c.settings(tmp)
        if c.name == "ours-stacks":
            settings.append("MEMLEAK_CONFIG=mtraceinit")
        out.append((c.name, settings))
    return out


def default_command(tmp):
    """clang-format of libmtrace's sources, or None without clang-format."""
    tool = shutil.which("clang-format")
    if tool is None:
        return None
    src = os.path.join(tmp, "all.c")
    with open(src, "w") as out:
        for path in sorted(glob.glob(os.path.join(ROOT, "libmtrace", "*.c"))):
            with open(path) as f:
                out.write(f.read())
    return [tool, src]


def events(log):
    """Event lines of our log (allocations, releases)."""
    n = 0
    with open(log, errors="replace") as f:
        for line in f:
            n += line[0] in "+-<>!" or line.startswith("@ ")
    return n


def main():
    p = argparse.ArgumentParser(
        description="A real C++ program under libmtrace and its peers.")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--tmp")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    rb = load_run_bench()
    if not os.access(rb.RUNIT, os.X_OK):
        p.error("%s is missing: run `make -C bench` first" % rb.RUNIT)
    tmp = a.tmp or tempfile.mkdtemp(prefix="mtrace-realprog.")
    os.makedirs(tmp, exist_ok=True)
    cmd = a.cmd or default_command(tmp)
    if not cmd:
        sys.exit("realprog.py: clang-format is not installed; name a "
                 "program to run")
    cfgs = configs(rb, tmp)
    walls = {name: [] for name, _ in cfgs}
    n_events = None
    for _ in range(a.runs):
        for name, settings in cfgs:
            for f in ("log", "ht.raw"):
                if os.path.exists(os.path.join(tmp, f)):
                    os.unlink(os.path.join(tmp, f))
            r = rb.spawn_timed(cmd, os.path.join(tmp, "stdout"),
                               os.path.join(tmp, "stderr"), settings)
            if r.status != 0:
                sys.exit("realprog.py: %s exited with %d under %s (stderr "
                         "in %s)" % (cmd[0], r.status, name, tmp))
            walls[name].append(r.wall)
            if name == "ours-stacks" and n_events is None:
                n_events = events(os.path.join(tmp, "log"))
    print("%s, %d rounds, %s" % (" ".join(cmd), a.runs, rb.loadavg()))
    med = {k: statistics.median(v) for k, v in walls.items()}
    print("| config | median wall (s) | spread | overhead (s) |")
    print("|---|---|---|---|")
    for name, _ in cfgs:
        print("| %s | %.3f | %s | %s |" % (
            name, med[name], rb.spread(walls[name]),
            "-" if name == "native" else "%.3f" % (med[name] - med["native"])))
    ours = med.get("ours-stacks")
    if ours is not None:
        over = ours - med["native"]
        if n_events:
            print("\nours-stacks: %d events, %.0f ns of overhead an event" %
                  (n_events, 1e9 * over / n_events))
        for peer in ("heaptrack", "lsan"):
            if peer in med and med[peer] > med["native"]:
                print("overhead ours-stacks / %s: %.2f" %
                      (peer, over / (med[peer] - med["native"])))
    if not a.tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
