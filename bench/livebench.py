#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# livebench.py - the full log against the live log (MEMLEAK_CONFIG=log=live)
# on one of realbench.py's real programs: native, full and live runs
# alternated (then the reverse order) for N rounds; for each mode the
# medians of the traced run's wall and CPU time (user + system, runit),
# the log's bytes, mtrace-check's wall and CPU time, and the time to a
# verdict (run + check) against native.  Prints a Markdown row per mode.
#
# Copyright (C) 2026 the libmtrace authors.
#
# Usage: bench/livebench.py cxx|python|sqlite ROUNDS [LIBMTRACE] [TMPDIR]
#   LIBMTRACE: the library to preload (default: the tree's; give a copy
#   when the tree may be rebuilt meanwhile).
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import realbench as rb  # noqa: E402

MODES = {"native": None, "full": "mtraceinit", "live": "mtraceinit,log=live"}


def once(mode, argv, lib, tmp):
    """(wall, cpu, log bytes, check wall, check cpu) of one run."""
    log = os.path.join(tmp, "log")
    if os.path.exists(log):
        os.unlink(log)
    settings = []
    if MODES[mode]:
        settings = ["MEMLEAK_CONFIG=" + MODES[mode], "LD_PRELOAD=" + lib,
                    "MALLOC_TRACE=" + log]
    r = bl.spawn_timed(argv, os.path.join(tmp, "stdout"),
                       os.path.join(tmp, "stderr"), settings)
    if r.status != 0:
        sys.exit("%s: exit status %d" % (mode, r.status))
    if not MODES[mode]:
        return r.wall, r.cpu, 0, 0.0, 0.0
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    c = subprocess.run([bl.CHECKER, argv[0], log], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=bl.clean_env())
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if c.returncode not in (0, 1):
        sys.exit("%s: mtrace-check status %d" % (mode, c.returncode))
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    return r.wall, r.cpu, os.path.getsize(log), wall, cpu


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: livebench.py cxx|python|sqlite ROUNDS [LIBMTRACE] [TMPDIR]")
    name, rounds = sys.argv[1], int(sys.argv[2])
    lib = sys.argv[3] if len(sys.argv) > 3 else bl.OURS
    tmp = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp(
        prefix="mtrace-livebench.")
    progs = {n: p for n, _, p in rb.PROGRAMS}
    if name not in progs:
        sys.exit("unknown program %s (%s)" % (name, ", ".join(progs)))
    argv, why = progs[name](tmp)
    if argv is None:
        sys.exit("%s: %s" % (name, why))
    order = list(MODES)
    res = {m: [] for m in order}
    for r in range(rounds):
        for m in (order if r % 2 == 0 else order[::-1]):
            res[m].append(once(m, argv, lib, tmp))
            print("%s %s" % (m, " ".join("%.2f" % v for v in res[m][-1])),
                  file=sys.stderr, flush=True)
    native = statistics.median(v[0] for v in res["native"])
    print(bl.loadavg())
    for m in order:
        v = res[m]
        col = [statistics.median(x[i] for x in v) for i in range(5)]
        walls = [x[0] for x in v]
        verdict = statistics.median(x[0] + x[3] for x in v)
        print("| %s | %s | %d | %.2f (%.2f-%.2f) | %.2f | %d | %.2f | %.2f | "
              "%.2fx |" % (name, m, len(v), col[0], min(walls), max(walls),
                           col[1], col[2], col[3], verdict, verdict / native))
    return 0


if __name__ == "__main__":
    sys.exit(main())
