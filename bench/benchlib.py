#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# benchlib.py - run-bench.py's workloads, tracer configurations, and how
# one run is timed (also loaded by ab.py and realprog.py through it).
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
    # A live log (issue 31): only the blocks live at a report point, their
    # later frees, verdicts and time records (MEMLEAK_CONFIG=log=live).
    Config("ours-live", {"MALLOC_TRACE": "{tmp}/log", "LD_PRELOAD": OURS,
                         "MEMLEAK_CONFIG": "log=live"},
           log="log", needs=[OURS]),
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


def loadavg():
    """The load average, to tell a quiet machine from a busy one."""
    try:
        with open("/proc/loadavg") as f:
            return "loadavg " + " ".join(f.read().split()[:3])
    except OSError:
        return ""
