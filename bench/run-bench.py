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

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
OURS = os.path.join(ROOT, "libmtrace", "libmtrace.so")
CHECKER = os.path.join(ROOT, "mtrace-check", "mtrace-check")
GLIBC_DEBUG = "/lib/x86_64-linux-gnu/libc_malloc_debug.so"
HEAPTRACK = "/usr/lib/heaptrack/libheaptrack_preload.so"
LSAN = "/usr/lib/x86_64-linux-gnu/liblsan.so.0"
GLIBC_MTRACE = "/usr/bin/mtrace"
RUNIT = os.path.join(BENCH, "runit")
RUN_TIMEOUT = 600            # seconds; a hung tracer must not hang the bench

# Variables a run must not inherit from the caller's shell.
TRACER_VARS = ("MALLOC_TRACE", "LD_PRELOAD", "MEMLEAK_CONFIG", "LSAN_OPTIONS",
               "DUMP_HEAPTRACK_OUTPUT")


# ---------------------------------------------------------------- workloads

class Workload:
    """A program and its full-size argument; `size` scales with --scale."""

    def __init__(self, name, what, argv, size):
        self.name, self.what, self.argv, self.size = name, what, argv, size

    def command(self, size):
        return [a.replace("@N", str(size)) for a in self.argv]


WORKLOADS = [
    Workload("single", "malloc/free pairs, 1 thread, 15 frames",
             ["./wl", "pairs", "@N", "1"], 1_000_000),
    Workload("threads", "same pairs split over 2 threads",
             ["./wl", "pairs", "@N", "2"], 1_000_000),
    Workload("deep", "malloc/free pairs, 37 frames",
             ["./wl", "deep", "@N"], 400_000),
    Workload("cxx", "std::string/vector/map churn (~21 allocs/iter)",
             ["./wl_cxx", "@N"], 20_000),
    Workload("realloc", "realloc of growing/shrinking blocks",
             ["./wl", "realloc", "@N"], 1_000_000),
    Workload("live", "1M 32-byte blocks live at peak",
             ["./wl", "live", "@N"], 1_000_000),
]


# ------------------------------------------------------------------ configs

class Config:
    """How to run a workload under one tracer.

    env: variables to set ({tmp} is replaced by the run's scratch dir);
    prefix: command prepended (valgrind; {tmp} replaced too); log: file the tracer writes;
    needs: files that must exist for the config to be available;
    reduced: run at --vg-fraction of the size and extrapolate;
    slow: seconds a run and no target of its own: only --slow-runs rounds."""

    def __init__(self, name, env=None, prefix=(), log=None, needs=(),
                 reduced=False, default=True, fp=False, tree=False,
                 slow=False):
        self.name, self.env, self.prefix = name, env or {}, list(prefix)
        self.slow = slow
        self.tree = tree              # peak RSS is of a tree of processes
        self.fp = fp                  # run the frame-pointer builds (*-fp)
        self.log, self.needs, self.reduced = log, needs, reduced
        self.default = default        # run unless --configs names others
        self.broken = None            # reason, once a smoke test failed

    def available(self):
        return self.broken is None and all(os.path.exists(n) for n in self.needs)

    def settings(self, tmp):
        """The tracer's VAR=VALUE settings, for the traced program only."""
        return ["%s=%s" % (k, v.replace("{tmp}", tmp)) for k, v in self.env.items()]


def clean_env():
    """The caller's environment without any tracer variables."""
    return {k: v for k, v in os.environ.items() if k not in TRACER_VARS}


VALGRIND = ["valgrind", "-q", "--leak-check=full", "--error-exitcode=0"]

CONFIGS = [
    Config("native"),
    Config("ours-stacks", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS},
           log="log", needs=[OURS]),
    Config("ours-classic", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                            "MEMLEAK_CONFIG": "classic"},
           log="log", needs=[OURS]),
    # No MALLOC_TRACE: ours only collects and writes a leak report at exit;
    # report= sends it to the scratch dir instead of the working directory.
    Config("ours-nolog", {"LD_PRELOAD": OURS,
                          "MEMLEAK_CONFIG": "report={tmp}/report.%p.memlog"},
           needs=[OURS]),
    # Compressed log (issue 15.3): libmtrace's thread compresses with zstd.
    Config("ours-zstd", {"MALLOC_TRACE": "{tmp}/log.zst", "LD_PRELOAD": OURS},
           log="log.zst", needs=[OURS]),
    # Sampling mode (issue 15): about one block per 512 KiB recorded.
    Config("ours-sample", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                           "MEMLEAK_CONFIG": "sample=512k"},
           log="log", needs=[OURS]),
    # glibc's backtrace() unwinder instead of libunwind: only on request.
    Config("ours-glibcunw", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                             "MEMLEAK_CONFIG": "unwind=glibc"},
           log="log", needs=[OURS], default=False),
    # Each of libmtrace's unwinders by name (the default is "fast", its own
    # cached .eh_frame unwinder): only on request.
    Config("ours-fastunw", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                            "MEMLEAK_CONFIG": "unwind=fast"},
           log="log", needs=[OURS], default=False),
    Config("ours-libunwind", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                              "MEMLEAK_CONFIG": "unwind=libunwind"},
           log="log", needs=[OURS], default=False),
    # The opt-in frame-pointer unwinder needs programs built with frame
    # pointers: both run the *-fp builds, compare ours-fp with native-fp.
    Config("native-fp", default=False, fp=True),
    Config("ours-fp", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                       "MEMLEAK_CONFIG": "unwind=fp"},
           log="log", needs=[OURS], default=False, fp=True),
    Config("glibc", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": GLIBC_DEBUG},
           log="log", needs=[GLIBC_DEBUG]),
    # heaptrack's own script pipes the preload's raw output through
    # heaptrack_interpret and zstd; we run the same preload writing its raw
    # data straight to a file, so only the traced run itself is timed.
    Config("heaptrack", {"DUMP_HEAPTRACK_OUTPUT": "{tmp}/ht.raw",
                         "LD_PRELOAD": HEAPTRACK},
           log="ht.raw", needs=[HEAPTRACK]),
    # The whole `heaptrack -o` script as users run it (interpreter and zstd
    # running beside the program, script start-up included), for reference.
    Config("heaptrack-full", prefix=["heaptrack", "-o", "{tmp}/ht.raw"],
           needs=[HEAPTRACK, shutil.which("heaptrack") or "/nonexistent"],
           tree=True, slow=True),
    # exitcode=0: the workloads leak on purpose and LSan would exit 23.
    Config("lsan", {"LD_PRELOAD": LSAN,
                    "LSAN_OPTIONS": "detect_leaks=1:exitcode=0"},
           needs=[LSAN]),
    # LSan with full stacks (its slow DWARF unwinder): only on request,
    # it costs ~3 us per allocation.
    Config("lsan-slow", {"LD_PRELOAD": LSAN, "LSAN_OPTIONS":
                         "detect_leaks=1:exitcode=0:fast_unwind_on_malloc=0"},
           needs=[LSAN], default=False),
    Config("valgrind", prefix=VALGRIND,
           needs=[shutil.which("valgrind") or "/nonexistent"], reduced=True,
           slow=True),
]


# ------------------------------------------------------------------ running

class Result:
    def __init__(self, wall, maxrss_kb, status, cpu):
        self.wall, self.maxrss_kb, self.status = wall, maxrss_kb, status
        self.cpu = cpu                # user + system seconds


def spawn_timed(argv, out, err, settings=(), res=None):
    """Runs argv under ./runit with the tracer settings (VAR=VALUE) given to
    argv alone; returns wall time, peak RSS, exit status.  runit (not
    Python) is the parent so ru_maxrss is the child's own."""
    res = res or out + ".runit"
    acts = [(os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
            (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
    runner = [RUNIT, res, str(RUN_TIMEOUT)] + list(settings) + ["--"] + argv
    pid = os.posix_spawn(RUNIT, runner, clean_env(), file_actions=acts)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("runit failed on %s" % " ".join(argv))
    with open(res) as f:
        wall, rss, code, cpu = f.read().split()
    return Result(float(wall), int(rss), int(code), float(cpu))


def run_one(cfg, argv, tmp):
    """One timed run in BENCH; the tracer's log is left in tmp for sizing."""
    cwd = os.getcwd()
    os.chdir(BENCH)
    try:
        prefix = [a.replace("{tmp}", tmp) for a in cfg.prefix]
        if cfg.fp:
            argv = [argv[0] + "-fp"] + argv[1:]
        return spawn_timed(prefix + argv, os.path.join(tmp, "stdout"),
                           os.path.join(tmp, "stderr"), cfg.settings(tmp))
    finally:
        os.chdir(cwd)


def clear_logs(tmp):
    for name in os.listdir(tmp):
        if name.startswith(("log", "ht.raw", "report")):
            os.unlink(os.path.join(tmp, name))


def count_events(path, heaptrack):
    """Events in a log: lines that are allocations/frees, not headers or
    stack records ('#', '=' lines; heaptrack's t/i/m/... records)."""
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-q", "-d", "-c", path],
                              stdout=subprocess.PIPE, check=False).stdout
    else:
        with open(path, "rb") as f:
            data = f.read()
    if not data.endswith(b"\n"):
        data += b"\n"            # a cut last line still counts
    starts = b"\n" + data[:-1]   # every line start follows a "\n" here
    if heaptrack:
        return starts.count(b"\n+") + starts.count(b"\n-")
    return data.count(b"\n") - starts.count(b"\n#") - starts.count(b"\n=")


def log_stats(cfg, tmp):
    """(bytes, events) of the log the run just wrote, or None."""
    if not cfg.log:
        return None
    path = os.path.join(tmp, cfg.log)
    if not os.path.exists(path):
        return None
    return os.path.getsize(path), count_events(path, cfg.log == "ht.raw")


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


def loadavg():
    """The load average, to tell a quiet machine from a busy one."""
    try:
        with open("/proc/loadavg") as f:
            return "loadavg " + " ".join(f.read().split()[:3])
    except OSError:
        return ""


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
