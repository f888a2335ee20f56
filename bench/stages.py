#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# stages.py - where the time of a traced event goes, by stage of the hot
# path (issue 15): instructions per event from callgrind (exact, load-proof)
# and nanoseconds per event from perf's cpu-clock samples, for each `make
# bench` workload under ours-stacks.
#
# Copyright (C) 2026 the libmtrace authors.
#
# Usage: bench/stages.py [--scale F] [--only W1,W2] [--no-perf] [--config C]
#   --scale: callgrind runs at this fraction of the bench sizes (0.2)
#   --config: MEMLEAK_CONFIG for the traced runs ("" = the default)
# Needs valgrind; perf for the ns columns.  Prints markdown tables.

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
OURS = os.path.join(ROOT, "libmtrace", "libmtrace.so")

WORKLOADS = [("single", ["./wl", "pairs", "@N", "1"], 1_000_000),
             ("threads", ["./wl", "pairs", "@N", "2"], 1_000_000),
             ("deep", ["./wl", "deep", "@N"], 400_000),
             ("cxx", ["./wl_cxx", "@N"], 20_000),
             ("realloc", ["./wl", "realloc", "@N"], 1_000_000),
             ("live", ["./wl", "live", "@N"], 1_000_000)]

STAGES = ["interposition", "guard+fork gate", "unwinding", "stack table",
          "live table", "counters+peak", "formatting", "buffer write",
          "tracker glue", "kernel", "allocator+program"]

# By source file (callgrind names the file inlined code came from).
FILE_STAGE = {
    "shim.c": "interposition", "tracer.h": "interposition",
    "real.c": "interposition", "sampler.h": "interposition",
    "guard.h": "guard+fork gate", "forkgate.c": "guard+fork gate",
    "threads.h": "guard+fork gate", "threads.c": "guard+fork gate",
    "fastunwind.c": "unwinding", "stackread.h": "unwinding",
    "stackread.c": "unwinding", "unwind.c": "unwinding",
    "cfa.c": "unwinding", "ehframe.c": "unwinding",
    "stacktab.c": "stack table", "stacktab.h": "stack table",
    "frametab.c": "stack table", "cmap.c": "stack table",
    "elfsyms.c": "stack table", "modmap.c": "stack table",
    "livetab.c": "live table", "counters.c": "counters+peak",
    "fmt.c": "formatting", "threadlog.c": "buffer write",
    "writer.c": "buffer write", "tracelog.c": "buffer write",
}
# The line's formatting, by name wherever it is (stage_of looks first).
FORMAT_FUNCS = r"^(format_event|format_from_parts|emit_long_event|put_ptr)"
# Functions of tracer.c (and shared headers' inlined copies) by name.
FUNC_STAGE = [
    (r"^(log_event|log_sink|publish_stack|emit_|line_tag|stop_on_write)",
     "buffer write"),
    (r"^(account_bytes|count_alloc|count_free|uncount_free|raise_peak|weigh)",
     "counters+peak"),
    (r"^current_stack", "stack table"),
    (r"^livetab", "live table"),
    (r"^threadlog", "buffer write"),
    (r"^(gate_|thread_record)", "guard+fork gate"),
    (r"^(tracer_|on_alloc|log_release|realloc_|hold|release)",
     "tracker glue"),
    (r"^(fastunwind|unwind|raw_unwind|thread_memo)", "unwinding"),
    (r"^(malloc|free|calloc|realloc|traced_|record_alloc)", "interposition"),
    (r"^(counters_)", "counters+peak"),
    (r"^(stacktab|frametab)", "stack table"),
]


def stage_of(path, func, obj):
    base = os.path.basename(path)
    if "libmtrace" in obj or "libmtrace" in path or base in FILE_STAGE:
        # By name before the file: the formatting lives in tracelog.c,
        # whose other functions are the buffer write.
        if re.search(FORMAT_FUNCS, func):
            return "formatting"
        if base in FILE_STAGE and base not in ("spin.h",):
            return FILE_STAGE[base]
        for rx, st in FUNC_STAGE:
            if re.search(rx, func):
                return st
        if "memmove" in func or "memcpy" in func:
            return "buffer write"
        return "tracker glue"
    if "memmove" in func or "memcpy" in func:
        return "buffer write"   # writer_put, threadlog copies
    if "kernel" in obj:
        return "kernel"
    return "allocator+program"


def run(argv, env=None, cwd=BENCH):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True,
                          text=True)


def events_in(log):
    n = 0
    with open(log, "rb") as f:
        for line in f:
            if line[:1] in (b"#", b"="):
                continue
            n += 1
    return n


def traced_env(tmp, config):
    env = dict(os.environ)
    for k in ("MALLOC_TRACE", "LD_PRELOAD", "MEMLEAK_CONFIG"):
        env.pop(k, None)
    env["MALLOC_TRACE"] = os.path.join(tmp, "log")
    if config:
        env["MEMLEAK_CONFIG"] = config
    return env


def callgrind(cmd, tmp, config, traced):
    out = os.path.join(tmp, "cg.out")
    env = traced_env(tmp, config) if traced else dict(os.environ)
    pre = ["env", "LD_PRELOAD=" + OURS] if traced else []
    r = run(pre + ["valgrind", "--tool=callgrind", "--callgrind-out-file=" +
                   out] + cmd, env=env)
    if r.returncode != 0:
        sys.exit("callgrind failed: %s" % r.stderr[-500:])
    ann = run(["callgrind_annotate", "--threshold=100", "--auto=no", out])
    by = {s: 0 for s in STAGES}
    total = 0
    for line in ann.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(\S+)(\s+\[(.*)\])?$",
                     line)
        if not m or m.group(2) == "PROGRAM":
            continue
        n = int(m.group(1).replace(",", ""))
        by[stage_of(m.group(2), m.group(3), m.group(5) or "")] += n
        total += n
    return by, total


def perf_profile(cmd, tmp, config):
    data = os.path.join(tmp, "perf.data")
    env = traced_env(tmp, config)
    r = run(["perf", "record", "-q", "-F", "4999", "-e", "cpu-clock", "-o",
             data, "--", "env", "LD_PRELOAD=" + OURS] + cmd, env=env)
    if r.returncode != 0:
        return None
    rep = run(["perf", "report", "-i", data, "--no-children", "--stdio",
               "--sort", "dso,sym", "-g", "none", "--percent-limit", "0"])
    by = {s: 0.0 for s in STAGES}
    for line in rep.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$", line)
        if not m:
            continue
        pct, dso, kind, sym = (float(m.group(1)), m.group(2), m.group(3),
                               m.group(4).strip())
        if dso in ("env",) or sym.startswith("0x"):
            obj = dso
        else:
            obj = dso
        if kind == "k":
            by["kernel"] += pct
        elif "libmtrace" in obj:
            by[stage_of("", sym, "libmtrace")] += pct
        else:
            by[stage_of("", sym, obj)] += pct
    st = run(["perf", "stat", "-x,", "-e", "task-clock", "--", "env",
              "LD_PRELOAD=" + OURS] + cmd, env=env)
    ms = None
    for line in st.stderr.splitlines():
        f = line.split(",")
        if len(f) > 2 and "task-clock" in f[2]:
            ms = float(f[0])
    return by, ms


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=float, default=0.2)
    p.add_argument("--only")
    p.add_argument("--config", default="")
    p.add_argument("--no-perf", action="store_true")
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="mtrace-stages.")
    wanted = set(a.only.split(",")) if a.only else None
    rows_i, rows_ns = [], []
    for name, argv, size in WORKLOADS:
        if wanted and name not in wanted:
            continue
        n = max(1, int(size * a.scale))
        cmd = [x.replace("@N", str(n)) for x in argv]
        by, total = callgrind(cmd, tmp, a.config, True)
        events = events_in(os.path.join(tmp, "log"))
        nby, ntotal = callgrind(cmd, tmp, a.config, False)
        native = ntotal / events
        ours = [by[s] / events for s in STAGES[:-2]]
        rest = (total - ntotal - sum(by[s] for s in STAGES[:-2])) / events
        rows_i.append([name, "%d" % events] + ["%.0f" % x for x in ours] +
                      ["%.0f" % ((total - ntotal) / events), "%.0f" % native,
                       "%.0f" % rest])
        if a.no_perf or not shutil.which("perf"):
            continue
        cmd = [x.replace("@N", str(size)) for x in argv]
        prof = perf_profile(cmd, tmp, a.config)
        if prof is None or prof[1] is None:
            continue
        pby, ms = prof
        ev = events_in(os.path.join(tmp, "log"))
        ns = [pby[s] / 100 * ms * 1e6 / ev for s in STAGES]
        rows_ns.append([name, "%d" % ev, "%.1f" % (ms * 1e6 / ev)] +
                       ["%.1f" % x for x in ns])
    head = ["workload", "events"] + STAGES[:-2] + \
        ["ours total", "native program", "unattributed"]
    print("### Instructions per event (callgrind, --scale %g)\n" % a.scale)
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows_i:
        print("| " + " | ".join(r) + " |")
    if rows_ns:
        head = ["workload", "events", "all ns/event"] + STAGES
        print("\n### Nanoseconds per event (perf cpu-clock samples x "
              "task-clock, full size)\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows_ns:
            print("| " + " | ".join(r) + " |")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
