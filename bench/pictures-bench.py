#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# pictures-bench.py - what the pictures of issue 14 cost (make bench runs it
# after run-bench.py; alone: make -C bench pictures):
#   1. the "#t" time records on libmtrace's hot path: callgrind instruction
#      counts of bench/wl "pairs" traced, the share spent in threadlog.c's
#      stamp() (one clock read per buffer hand-over), and the records'
#      share of the log's bytes.  Instruction counts are repeatable on a
#      loaded machine;
#   2. the HTML report of a big real log: cc1's log of `gcc -O2 -c` on
#      libmtrace/track/tracer.c traced with MEMLEAK_CONFIG=mtraceinit (~300k
#      lines): mtrace-check --html time (wall and CPU, against the text
#      report alone), the page's size, and how long headless Chromium takes
#      from navigation to the page being drawn (tests/html/cdp.py).
# Prints medians with min-max over --runs runs.  GPL-3.0-or-later.

import argparse
import glob
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
LIB = os.path.join(ROOT, "libmtrace", "libmtrace.so")
CHECKER = os.path.join(ROOT, "mtrace-check", "mtrace-check")
sys.path.insert(0, os.path.join(ROOT, "tests", "html"))


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MALLOC_TRACE", "LD_PRELOAD", "MEMLEAK_CONFIG")}
    env.update(extra)
    return env


def spread(values, fmt="%.3f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (
        statistics.median(values), min(values), max(values))


def timed(argv, env=None):
    """Wall seconds and CPU seconds (user + system) of one run."""
    t0 = time.monotonic()
    pid = os.posix_spawn(argv[0], argv, env or clean_env(),
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, "/dev/null",
                                        os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit("%s: status %d" % (argv, code))
    return wall, ru.ru_utime + ru.ru_stime


# ------------------------------------------------------------- "#t" cost

def stamp_cost(tmp, events):
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        print("#t cost: n/a (valgrind missing)")
        return
    log = os.path.join(tmp, "wl.log")
    out = os.path.join(tmp, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                    os.path.join(BENCH, "wl"), "pairs", str(events), "1"],
                   env=clean_env(MALLOC_TRACE=log, LD_PRELOAD=LIB), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=1800)
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                          "--threshold=100", out],
                         capture_output=True, text=True, check=True).stdout
    total = stamp = clock = 0
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(.*?\)\s+(\S+)", line)
        if not m:
            continue
        n, where = int(m.group(1).replace(",", "")), m.group(2)
        if "PROGRAM TOTALS" in line:
            total = n
        elif where.endswith("threadlog.c:stamp"):
            stamp = max(stamp, n)
        elif "clock_gettime" in where:
            clock = max(clock, n)
    lines = stamps = stamp_bytes = size = 0
    with open(log, "rb") as f:
        for line in f:
            lines += 1
            size += len(line)
            if line.startswith(b"#t "):
                stamps += 1
                stamp_bytes += len(line)
    evs = 2 * events  # a malloc and a free per pair
    print("#t cost, wl pairs %d (1 thread) under callgrind:" % events)
    print("  total %.1f instructions/event; stamp() %.3f instructions/event "
          "(%.3f%% of the total; clock_gettime %.3f/event)"
          % (total / evs, stamp / evs, 100.0 * stamp / total if total else 0,
             clock / evs))
    print("  log: %d lines, %d #t records (%.3f%% of the bytes)"
          % (lines, stamps, 100.0 * stamp_bytes / size if size else 0))


# ------------------------------------------------------- the cc1 page

def cc1_log(tmp):
    src = os.path.join(ROOT, "libmtrace", "track", "tracer.c")
    log = os.path.join(tmp, "gcc.log")
    subprocess.run(["gcc", "-O2", "-I" + os.path.join(ROOT, "include"),
                    "-I" + os.path.join(ROOT, "libmtrace"), "-c",
                    src, "-o", os.path.join(tmp, "tracer.o")],
                   env=clean_env(MALLOC_TRACE=log, LD_PRELOAD=LIB,
                                 MEMLEAK_CONFIG="mtraceinit"),
                   check=True, timeout=600)
    logs = [p for p in glob.glob(log + ".*") if re.search(r"\.\d+$", p)]
    return max(logs, key=os.path.getsize)  # cc1's, not the driver's or as'


def page_load(page, runs):
    import cdp
    if cdp.find_chromium() is None:
        print("  page load: n/a (chromium missing)")
        return
    b = cdp.Browser(width=1400, height=1000, timeout=300)
    try:
        b.call("Page.enable")
        times, boxes = [], 0
        for _ in range(runs):
            b.events.clear()
            t0 = time.monotonic()
            b.call("Page.navigate", {"url": "file://" + page})
            b.wait_event("Page.loadEventFired")
            b.wait_for("document.body && document.body.dataset.ready === '1'")
            times.append((time.monotonic() - t0) * 1000)
            boxes = b.eval("document.querySelectorAll('#flame g.fr').length")
            b.call("Page.navigate", {"url": "about:blank"})
            b.wait_event("Page.loadEventFired")
        # The heaviest interaction: the view of all allocations.
        b.call("Page.navigate", {"url": "file://" + page})
        b.wait_event("Page.loadEventFired")
        b.wait_for("document.body.dataset.ready === '1'")
        switch = b.eval("""(() => { const t0 = performance.now();
          document.querySelector('input[name=view][value=all]').click();
          return performance.now() - t0; })()""")
    finally:
        b.close()
    print("  page load in headless chromium, navigation to drawn: %s ms "
          "(%d boxes); switch to 'all allocations': %.0f ms"
          % (spread(times, "%.0f"), boxes, switch))


def cc1_page(tmp, runs):
    log = cc1_log(tmp)
    with open(log, "rb") as f:
        lines = sum(1 for _ in f)
    page = os.path.join(tmp, "cc1.html")
    html = [timed([CHECKER, "--quiet", "--html", page, log]) for _ in range(runs)]
    text = [timed([CHECKER, "--quiet", log]) for _ in range(runs)]
    print("cc1 (gcc -O2 -c libmtrace/track/tracer.c, MEMLEAK_CONFIG=mtraceinit): "
          "%d lines, %.1f MB log" % (lines, os.path.getsize(log) / 1e6))
    print("  mtrace-check --html: wall %s s, cpu %s s"
          % (spread([w for w, _ in html]), spread([c for _, c in html])))
    print("  mtrace-check (text): wall %s s, cpu %s s"
          % (spread([w for w, _ in text]), spread([c for _, c in text])))
    print("  page: %.2f MB" % (os.path.getsize(page) / 1e6))
    page_load(page, runs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--events", type=int, default=200000)
    ap.add_argument("--tmp")
    args = ap.parse_args()
    tmp = args.tmp or tempfile.mkdtemp(prefix="mtc-pictures-")
    print("pictures bench, %s, load %.2f" % (time.strftime("%Y-%m-%d %H:%M"),
                                             os.getloadavg()[0]))
    stamp_cost(tmp, args.events)
    cc1_page(tmp, args.runs)
    if not args.tmp:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
