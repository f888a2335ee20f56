#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# cli-test.py - libmtrace's "#t" time records in a real log, and
# mtrace-check's --folded, --html and progress line from the command line:
#   - "#t": one after the header, nondecreasing in one thread, spanning at
#     least the program's sleeps, at most about one per millisecond, one
#     after the last event, none in a classic log;
#   - --folded on the hand-checked log prints exactly logs/hand.expected;
#   - --folded of a traced program is valid folded input for flamegraph.pl,
#     inferno and speedscope, checked strictly (flamegraph.pl itself is not
#     a Debian package: nothing is fetched), and adds up to the figures of
#     --json and of the HTML report's summary;
#   - a hand-checked log with reachability verdicts (logs/classes.log):
#     the page's classes and loss records are --json's totals.classes,
#     exactly; a log without verdicts has none;
#   - bad option values and unwritable report paths give status 2;
#   - on a terminal (a pty) a check that lasts shows the progress line; on
#     a pipe, or with --quiet, it never does.  The log comes through a FIFO
#     the test holds open, so "lasts" never depends on the machine's speed.
# Ends with "N passed, N failed".  GPL-3.0-or-later.

import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
from tally import check, summary  # noqa: E402
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECKER = os.path.join(ROOT, "mtrace-check", "mtrace-check")
LIB = os.path.join(ROOT, "libmtrace", "libmtrace.so")
PHASES = os.path.join(HERE, "build", "phases")
OUT = os.path.join(HERE, "out")
HAND = os.path.join(HERE, "logs", "hand.log")

# A frame: anything but ';' and line ends, not blank; the weight: digits.
FOLDED_LINE = re.compile(r"^[^;\n\r]*[^;\s][^;\n\r]*(;[^;\n\r]*[^;\s][^;\n\r]*)* [1-9][0-9]*$")



def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, timeout=300, **kw)


def expected_blocks():
    blocks, name = {}, None
    for line in open(os.path.join(HERE, "logs", "hand.expected")):
        if line.startswith("#"):
            continue
        if line.startswith("== "):
            name = line[3:].strip()
            blocks[name] = ""
        elif name:
            blocks[name] += line
    return blocks


def test_hand():
    for view, want in expected_blocks().items():
        r = run([CHECKER, "--folded=" + view, HAND])
        check("hand --folded=%s" % view, r.stdout.decode() == want,
              "\n" + r.stdout.decode())
        check("hand --folded=%s: status 1 (leaks)" % view, r.returncode == 1)
    r = run([CHECKER, "--folded", HAND])
    check("hand --folded is leaks", r.stdout.decode() == expected_blocks()["leaks"])


CLASSES_LOG = os.path.join(HERE, "logs", "classes.log")
# The hand-checked verdicts of logs/classes.log: what its "#c" records,
# its suppression and its block allocated after the scan make of it.
CLASSES_WANT = {"definitely_lost": (304, 2), "indirectly_lost": (64, 1),
                "possibly_lost": (128, 1), "still_reachable": (515, 2),
                "unknown": (8, 1), "suppressed": (16, 1)}
LOST = ("definitely_lost", "indirectly_lost", "possibly_lost")


def page_of(path):
    text = open(path, encoding="utf-8").read()
    return json.loads(re.search(r'id="mtc-data">\n(.*?)\n</script>', text, re.S).group(1))


def test_leaked_totals():
    """With verdicts, totals.leaked_* count what the exit status counts
    (the --fail-on classes, suppressed blocks left out), and each leak
    says which suppression hid it."""
    for fail_on, classes in ((None, ("definitely_lost",)),
                             ("definite,possible", ("definitely_lost", "possibly_lost")),
                             ("all", tuple(k for k in CLASSES_WANT if k != "suppressed")),
                             ("none", ())):
        args = [CHECKER, "--json"] + (["--fail-on=" + fail_on] if fail_on else [])
        r = run(args + [CLASSES_LOG])
        totals = json.loads(r.stdout)["totals"]
        want = (sum(CLASSES_WANT[k][0] for k in classes),
                sum(CLASSES_WANT[k][1] for k in classes))
        name = "--fail-on=%s" % (fail_on or "(default)")
        check("%s: leaked_bytes, leaked_blocks are its classes'" % name,
              (totals["leaked_bytes"], totals["leaked_blocks"]) == want,
              "%s vs %s" % ((totals["leaked_bytes"], totals["leaked_blocks"]), want))
        check("%s: status 1 exactly when something counts" % name,
              r.returncode == (1 if want[1] else 0), str(r.returncode))
    leaks = json.loads(run([CHECKER, "--json", CLASSES_LOG]).stdout)["leaks"]
    by = {l["address"]: l for l in leaks}
    check("every leak has suppressed_by",
          all("suppressed_by" in l for l in leaks), str(leaks)[:300])
    check("the suppressed block names its pattern, the others null",
          by["0x5000"]["suppressed_by"] == "third_party_init" and
          all(l["suppressed_by"] is None for a, l in by.items() if a != "0x5000"),
          str([(a, l["suppressed_by"]) for a, l in by.items()]))


def test_classes():
    """A log with verdicts: the page carries the text report's classes."""
    page = os.path.join(OUT, "cli-classes.html")
    r = run([CHECKER, "--quiet", "--html", page, CLASSES_LOG])
    check("classes.log --html: status 1 (definitely lost)", r.returncode == 1)
    totals = json.loads(run([CHECKER, "--json", CLASSES_LOG]).stdout)["totals"]
    check("classes.log --json: the hand-checked classes",
          {k: (v["bytes"], v["blocks"]) for k, v in totals["classes"].items()}
          == CLASSES_WANT, str(totals["classes"]))
    data = page_of(page)
    got = {c["key"]: (c["bytes"], c["blocks"]) for c in data["classes"]}
    check("page classes are --json's totals.classes",
          got == {k: (v["bytes"], v["blocks"]) for k, v in totals["classes"].items()},
          "%s vs %s" % (got, totals["classes"]))
    check("page marks lost exactly definitely, indirectly, possibly lost",
          sorted(c["key"] for c in data["classes"] if c["lost"]) == sorted(LOST),
          str(data["classes"]))
    # The loss records add up to the class totals, and each names a stack.
    loss, keys = data["loss"], [c["key"] for c in data["classes"]]
    sums = {k: [0, 0] for k in keys}
    per_stack = {}
    for k in range(0, len(loss), 4):
        s, c, b, n = loss[k:k + 4]
        sums[keys[c]][0] += b
        sums[keys[c]][1] += n
        sid = data["stacks"]["sid"][s]
        per_stack.setdefault(sid, {})[keys[c]] = b
    check("loss records add up to the classes",
          {k: tuple(v) for k, v in sums.items()} == got, str(sums))
    check("one stack, two classes (cache_put: 48 lost, 512 reachable)",
          per_stack.get(3) == {"definitely_lost": 48, "still_reachable": 512},
          str(per_stack))
    check("the suppressed stack is suppressed only",
          per_stack.get(5) == {"suppressed": 16}, str(per_stack))
    check("blocks without a stack are classified too",
          per_stack.get(None) == {"still_reachable": 3}, str(per_stack))
    check("live at the end is still every block",
          sum(data["stacks"]["leak_b"]) == sum(b for b, _ in CLASSES_WANT.values())
          == 1035)
    # --folded=leaks weighs what the page's leaks view weighs: lost bytes.
    r = run([CHECKER, "--folded", CLASSES_LOG])
    folded = dict(l.rsplit(" ", 1) for l in r.stdout.decode().splitlines())
    # Not the 8 bytes allocated after the scan (load_config), the 512
    # still reachable (cache_put), the suppressed stack, nor the reachable
    # block without a stack.
    check("classes.log --folded: the lost bytes only", folded == {
        "main;load_config;xmalloc": "256", "main;add_node;xmalloc": "64",
        "main;cache_put": "48", "main;parse_name": "128"}, str(folded))
    r = run([CHECKER, "--folded=all", CLASSES_LOG])
    check("classes.log --folded=all: every allocation, as before",
          validate("classes.log --folded=all", r.stdout.decode()) ==
          data["summary"]["alloc_bytes"])
    # A log without verdicts: no classes, as before them.
    hand_page = os.path.join(OUT, "cli-hand.html")
    run([CHECKER, "--quiet", "--html", hand_page, HAND])
    plain = page_of(hand_page)
    check("no verdicts: no classes, no loss records",
          plain["classes"] == [] and plain["loss"] == [], str(plain["classes"]))


def validate(name, text):
    lines = text.splitlines()
    bad = [l for l in lines if not FOLDED_LINE.match(l)]
    check(name + ": every line is 'frame;...;frame weight'", not bad, str(bad[:3]))
    stacks = [l.rsplit(" ", 1)[0] for l in lines]
    check(name + ": one line per stack, sorted", stacks == sorted(set(stacks)))
    check(name + ": ends with a newline", text.endswith("\n"))
    return sum(int(l.rsplit(" ", 1)[1]) for l in lines)


def test_traced():
    log = os.path.join(OUT, "cli-phases.log")
    for f in os.listdir(OUT):
        if f.startswith("cli-phases.log"):
            os.unlink(os.path.join(OUT, f))
    env = dict(os.environ, MALLOC_TRACE=log, LD_PRELOAD=LIB)
    env.pop("MEMLEAK_CONFIG", None)
    subprocess.run([PHASES], env=env, check=True, timeout=300)
    totals = json.loads(run([CHECKER, "--json", PHASES, log]).stdout)["totals"]
    page = os.path.join(OUT, "cli-phases.html")
    r = run([CHECKER, "--html", page, "--folded=all", PHASES, log])
    check("--html with --folded: status 1", r.returncode == 1, r.stderr.decode())
    text = open(page, encoding="utf-8").read()
    data = json.loads(re.search(r'id="mtc-data">\n(.*?)\n</script>', text, re.S).group(1))
    summary = data["summary"]
    sums = {}
    for view in ("leaks", "peak", "all"):
        out = run([CHECKER, "--folded=" + view, PHASES, log]).stdout.decode()
        sums[view] = validate("phases --folded=" + view, out)
    lost = (sum(totals["classes"][k]["bytes"] for k in LOST)
            if "classes" in totals else totals["leaked_bytes"])
    check("folded leaks add up to --json's leaks", sums["leaks"] == lost,
          "%s %s" % (sums["leaks"], lost))
    check("folded peak adds up to the peak", sums["peak"] == summary["peak_bytes"])
    check("folded all adds up to the allocations", sums["all"] == summary["alloc_bytes"])
    check("--html with --folded: stdout is the folded stacks",
          validate("--html --folded=all", r.stdout.decode()) == sums["all"])


def trace_phases(name, config=None):
    log = os.path.join(OUT, name)
    for f in os.listdir(OUT):
        if f.startswith(name):
            os.unlink(os.path.join(OUT, f))
    env = dict(os.environ, MALLOC_TRACE=log, LD_PRELOAD=LIB)
    env.pop("MEMLEAK_CONFIG", None)
    if config:
        env["MEMLEAK_CONFIG"] = config
    subprocess.run([PHASES], env=env, check=True, timeout=300)
    return open(log, encoding="utf-8", errors="replace").read().splitlines()


def test_time_records():
    """libmtrace's "#t" records (doc/format.md, "Time") in a real log."""
    lines = trace_phases("time.log")
    stamps = [(i, int(l.split()[1])) for i, l in enumerate(lines) if l.startswith("#t ")]
    check("#t: well formed", all(re.fullmatch(
        r"#t [0-9]+( rss-anon=[0-9]+ rss-file=[0-9]+)?", lines[i])
        for i, _ in stamps))
    check("#t: the first and the last carry the resident memory",
          " rss-anon=" in lines[stamps[0][0]] and " rss-anon=" in lines[stamps[-1][0]])
    check("#t: one right after the header",
          len(lines) > 3 and lines[2].startswith("#p ") and lines[3].startswith("#t "),
          str(lines[:4]))
    values = [v for _, v in stamps]
    check("#t: one thread's stamps never go back", values == sorted(values))
    # The program sleeps 20 x 2 ms and 40 x 3 ms: at least that much passed.
    check("#t: the run lasts at least its sleeps",
          values and values[-1] - values[0] >= 160 * 1000000,
          "%s ns" % (values[-1] - values[0] if values else None))
    events = [i for i, l in enumerate(lines) if l[:1] in "+-<>" or l.startswith("@ ")]
    check("#t: stamps while it runs, not only at the ends",
          sum(1 for i, _ in stamps if events[0] < i < events[-1]) >= 10,
          "%d stamps" % len(stamps))
    check("#t: the exit flush tells the end", stamps and stamps[-1][0] > events[-1])
    # At most one per millisecond, plus the forced ones at flushes.
    span_ms = (values[-1] - values[0]) / 1e6 if values else 0
    check("#t: at most about one per millisecond", len(values) <= span_ms + 10,
          "%d stamps in %.0f ms" % (len(values), span_ms))
    classic = trace_phases("time-classic.log", "classic")
    check("#t: none in a classic log", not any(l.startswith("#t") for l in classic))


def test_errors():
    r = run([CHECKER, "--folded=live", HAND])
    check("--folded=live: status 2", r.returncode == 2 and b"leaks, peak or all" in r.stderr)
    r = run([CHECKER, "--html", "/nonexistent-dir/x.html", HAND])
    check("unwritable --html: status 2 and a message",
          r.returncode == 2 and b"/nonexistent-dir/x.html" in r.stderr, r.stderr.decode())
    r = run([CHECKER, "--html"])
    check("--html without a file: status 2", r.returncode == 2)


def progress_run(extra, on_tty, hold=None):
    """mtrace-check reading a FIFO; returns what it wrote on stderr.  With
    HOLD None, the second half of the log is written once the progress line
    shows (or after 60 s); else after HOLD seconds."""
    tmp = tempfile.mkdtemp(prefix="mtc-progress-")
    fifo = os.path.join(tmp, "log")
    os.mkfifo(fifo)
    log = open(HAND, "rb").read()
    if on_tty:
        master, slave = pty.openpty()
        proc = subprocess.Popen([CHECKER] + extra + [fifo], stdout=subprocess.DEVNULL,
                                stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        src = master
    else:
        proc = subprocess.Popen([CHECKER] + extra + [fifo], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        src = proc.stderr.fileno()
    w = open(fifo, "wb")
    w.write(log[: len(log) // 2])
    w.flush()
    got = b""
    deadline = time.monotonic() + (hold if hold is not None else 60)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([src], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(src, 4096)
            except OSError:
                chunk = b""
            got += chunk
            if hold is None and b" read, " in got:
                break
    w.write(log[len(log) // 2:])
    w.close()
    proc.wait(timeout=120)
    while True:
        ready, _, _ = select.select([src], [], [], 0.2)
        if not ready:
            break
        try:
            chunk = os.read(src, 4096)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    if on_tty:
        os.close(src)
    os.unlink(fifo)
    os.rmdir(tmp)
    return got.decode(errors="replace"), proc.returncode


def test_progress():
    err, status = progress_run([], on_tty=True)
    check("progress on a terminal", re.search(r"\rmtrace-check: [0-9.]+ \S+ read, [0-9.]+ \S+/s\033\[K", err)
          is not None, repr(err))
    tail = err.rsplit("\n", 1)[-1]
    check("no progress line left at the end",
          "read, " not in tail or tail.endswith("\r\033[K"), repr(err[-60:]))
    check("a message starts on a line of its own",
          "\r\033[Kmtrace-check: /nonexistent/prog: no usable file" in err, repr(err))
    check("progress run: status 1 (leaks)", status == 1)
    err, status = progress_run(["--quiet"], on_tty=True, hold=2.5)
    check("no progress with --quiet", "read, " not in err and "\033[K" not in err, repr(err))
    err, status = progress_run([], on_tty=False, hold=2.5)
    check("no progress on a pipe", "read, " not in err and "\033[K" not in err, repr(err))


def main():
    os.makedirs(OUT, exist_ok=True)
    for test in (test_hand, test_leaked_totals, test_classes, test_traced, test_time_records,
                 test_errors, test_progress):
        try:
            test()
        except Exception as e:
            check(test.__name__, False, repr(e))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
