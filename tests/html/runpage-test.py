#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# runpage-test.py - the HTML page of a whole run (mtrace-check --html FILE
# LOG..., mtrace-run --html=FILE), in headless Chromium:
#   - progs/forks.c, a parent and two fork children, each leaking what
#     only it leaks, traced into one run directory;
#   - the page's process table has one row per log, its pid the log's, its
#     cells by class each process's --json totals.classes; the combined
#     totals are their sums; the figures forks.c leaks are there;
#   - each row's "report" link leads to that process's section, whose
#     frame holds its own report, rendered (its script ran) and showing
#     the same classes;
#   - nothing is fetched, no script error;
#   - mtrace-run --html=FILE writes the same kind of page for its run.
# Ends with "N passed, N failed".  GPL-3.0-or-later.

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
import cdp  # noqa: E402
from tally import check, summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(ROOT, "mtrace-check", "mtrace-check")
RUN = os.path.join(ROOT, "mtrace-run", "mtrace-run")
LIB = os.path.join(ROOT, "libmtrace", "libmtrace.so")
FORKS = os.path.join(HERE, "build", "forks")
OUT = os.path.join(HERE, "out", "runpage")
KEYS = ("definitely_lost", "indirectly_lost", "possibly_lost",
        "still_reachable", "unknown", "suppressed")


def trace_tree(rundir):
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    env = dict(os.environ, MALLOC_TRACE=os.path.join(rundir, "trace.%p"),
               LD_PRELOAD=LIB, MEMLEAK_CONFIG="mtraceinit")
    subprocess.run([FORKS], env=env, check=True, timeout=300)
    return sorted(os.path.join(rundir, f) for f in os.listdir(rundir))


def log_pid(log):
    with open(log, errors="replace") as f:
        for line in f:
            m = re.search(r"\bpid=(\d+)", line)
            if line.startswith("#v") and m:
                return int(m.group(1))
    return None


def json_classes(log):
    r = subprocess.run([CHECKER, "--json", FORKS, log], capture_output=True,
                       timeout=300)
    totals = json.loads(r.stdout)["totals"]
    c = totals.get("classes", {})
    return {k: (c[k]["bytes"], c[k]["blocks"]) if k in c else (0, 0)
            for k in KEYS}


def open_page(b, path):
    b.events.clear()
    url = "file://" + path
    b.call("Page.navigate", {"url": url})
    b.wait_event("Page.loadEventFired")
    return url


def page_rows(b):
    """The process table: pid -> {class key: (bytes, blocks)}, plus the
    row's index."""
    return b.eval("""Object.fromEntries(
      Array.from(document.querySelectorAll('#procs tr[data-pid]')).map((tr, i) =>
        [tr.dataset.pid, Object.assign({index: i}, Object.fromEntries(
          Array.from(tr.querySelectorAll('td[data-key]')).map((td) =>
            [td.dataset.key, [+td.dataset.bytes, +td.dataset.blocks]])))]))""")


def page_totals(b):
    return b.eval("""Object.fromEntries(
      Array.from(document.querySelectorAll('#totals tr[data-key]')).map((tr) => {
        const td = tr.querySelector('td[data-key]');
        return [tr.dataset.key, [+td.dataset.bytes, +td.dataset.blocks]]; }))""")


def frame_classes(b, i):
    """The classes the report in section I shows, once its script ran."""
    frame = "document.querySelector('#proc-%d iframe').contentDocument" % i
    b.wait_for("(() => { const d = %s; return d && d.body && "
               "d.body.dataset.ready === '1'; })()" % frame)
    return {k: tuple(v) for k, v in b.eval("""Object.fromEntries(
      Array.from(%s.querySelectorAll('#classes tr')).map((tr) =>
        [tr.dataset.key, [+tr.dataset.bytes, +tr.dataset.blocks]]))"""
                                           % frame).items()}


def follow_link(b, i):
    """Clicks row I's report link; whether its section is then shown."""
    b.eval("document.querySelector('#row-%d a[href]').click()" % i)
    return b.eval("""(() => {
      const s = document.getElementById('proc-%d');
      const r = s.getBoundingClientRect();
      return location.hash === '#proc-%d' && r.top > -2 &&
             r.top < innerHeight; })()""" % (i, i))


def network_checks(b, name, url):
    b.eval("1")
    reqs = [e["params"]["request"]["url"] for e in b.events
            if e.get("method") == "Network.requestWillBeSent"]
    check(name + ": no request but the page itself",
          all(u == url for u in reqs), str(reqs))
    errors = [e["params"] for e in b.events
              if e.get("method") == "Runtime.exceptionThrown"]
    check(name + ": no script error", not errors, str(errors)[:500])


def check_page(b, name, page, logs):
    url = open_page(b, page)
    rows = page_rows(b)
    check(name + ": a row per log", len(rows) == len(logs), str(rows.keys()))
    want_sum = {k: [0, 0] for k in KEYS}
    for log in logs:
        pid, want = str(log_pid(log)), json_classes(log)
        for k in KEYS:
            want_sum[k][0] += want[k][0]
            want_sum[k][1] += want[k][1]
        row = rows.get(pid)
        check("%s: pid %s's row is its --json classes" % (name, pid),
              row is not None and all(tuple(row[k]) == want[k] for k in KEYS),
              "%s vs %s" % (row, want))
        if row is None:
            continue
        i = row["index"]
        check("%s: pid %s: the report link shows its section" % (name, pid),
              follow_link(b, i))
        shown = frame_classes(b, i)
        check("%s: pid %s: its report rendered with its classes" % (name, pid),
              all(shown.get(k, (0, 0)) == want[k] for k in KEYS),
              "%s vs %s" % (shown, want))
    totals = page_totals(b)
    check(name + ": the combined totals are the sums",
          all(tuple(totals[k]) == tuple(want_sum[k]) for k in KEYS),
          "%s vs %s" % (totals, want_sum))
    network_checks(b, name, url)
    return rows


def test_checker(b):
    logs = trace_tree(os.path.join(OUT, "run"))
    check("forks: three logs", len(logs) == 3, str(logs))
    page = os.path.join(OUT, "run.html")
    if os.path.exists(page):
        os.unlink(page)
    r = subprocess.run([CHECKER, "--quiet", "--html", page, FORKS] + logs,
                       capture_output=True, timeout=300)
    check("--html with several logs: status 1 (leaks)", r.returncode == 1,
          r.stderr.decode())
    rows = check_page(b, "run page", page, logs)
    # What forks.c leaks, each in its own process's row.
    lost = sorted(tuple(v["definitely_lost"]) for v in rows.values())
    check("run page: forks.c's 1000, 2000 and 4000 bytes, a row each",
          lost == [(1000, 1), (2000, 1), (4000, 1)], str(lost))
    check("run page: the parent's indirectly lost node and a child's "
          "reachable block",
          sorted(tuple(v["indirectly_lost"]) for v in rows.values())[-1] == (64, 1)
          and sorted(tuple(v["still_reachable"]) for v in rows.values())[-1]
          == (300, 1), str(rows))


def test_mtrace_run(b):
    rundir = os.path.join(OUT, "mtrace-run")
    shutil.rmtree(rundir, ignore_errors=True)
    page = os.path.join(OUT, "mtrace-run.html")
    if os.path.exists(page):
        os.unlink(page)
    r = subprocess.run([RUN, "-q", "--mtrace-dir=" + rundir, "--html=" + page,
                        FORKS], capture_output=True, timeout=300)
    check("mtrace-run --html: the program's status", r.returncode == 0,
          r.stderr.decode())
    logs = sorted(os.path.join(rundir, f) for f in os.listdir(rundir))
    check_page(b, "mtrace-run --html", page, logs)


def main():
    os.makedirs(OUT, exist_ok=True)
    if cdp.find_chromium() is None:
        check("chromium is installed (scripts/install-deps.sh installs it)", False)
        return summary()
    b = cdp.Browser()
    try:
        b.call("Network.enable")
        b.call("Page.enable")
        b.call("Runtime.enable")
        for test in (test_checker, test_mtrace_run):
            try:
                test(b)
            except Exception as e:  # a broken page must not end the run
                check(test.__name__, False, repr(e))
    finally:
        b.close()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
