#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# browser-test.py - mtrace-check's HTML report in a real browser: headless
# Chromium (Debian's package) driven through the DevTools protocol over a
# pipe (cdp.py).  For a freshly traced program (progs/phases.c), the
# hand-checked log and a classic glibc log, it checks that the page loads
# without a script error and without any network request, that the flame
# graph and the chart are drawn with the figures mtrace-check computed,
# that a click zooms, that a tooltip shows, that dragging across the chart
# redraws the graph with what memray's temporal query gives for that range
# (recomputed here from the page's data), that search, view switches and
# the table work, and that the leaks view holds the same stacks as
# --folded.  For a program with real leaks and blocks still reachable at
# exit (progs/classes.c), the summary's classes are --json's
# totals.classes, the leaks view weighs only the lost classes, the still
# reachable blocks are a tick away, and the table names each stack's
# class; without verdicts (reach=0) every live block is a leak, as before.
# For a program run with periodic scans (progs/growth.c of the integration
# tests), the chart of the growing stacks shows --json's growth.  No check depends on speed: load times are printed, never
# compared with a limit.  Ends with "N passed, N failed".
# GPL-3.0-or-later.

import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "common"))
import cdp  # noqa: E402
from tally import check, summary  # noqa: E402

CHECKER = os.path.join(ROOT, "mtrace-check", "mtrace-check")
LIB = os.path.join(ROOT, "libmtrace", "libmtrace.so")
GLIBC_DEBUG = "/lib/x86_64-linux-gnu/libc_malloc_debug.so"
OUT = os.path.join(HERE, "out")
PHASES = os.path.join(HERE, "build", "phases")
CLASSES = os.path.join(HERE, "build", "classes")
RSSMAP = os.path.join(HERE, "build", "rssmap")
RUNS = os.path.join(HERE, "build", "runs")
GROWTH = os.path.join(HERE, "build", "growth")
LOST = ("definitely_lost", "indirectly_lost", "possibly_lost")



def run(argv, env=None, ok=(0, 1)):
    r = subprocess.run(argv, env=env, capture_output=True, timeout=300)
    if r.returncode not in ok:
        raise RuntimeError("%s: status %d: %s" % (argv, r.returncode,
                                                  r.stderr.decode()))
    return r.stdout.decode()


def trace(prog, log, preload, extra_env=None):
    for f in os.listdir(OUT):
        if f.startswith(os.path.basename(log)):
            os.unlink(os.path.join(OUT, f))
    env = dict(os.environ, MALLOC_TRACE=log, LD_PRELOAD=preload)
    env.pop("MEMLEAK_CONFIG", None)
    env.update(extra_env or {})
    subprocess.run([prog], env=env, check=True, timeout=300,
                   stdout=subprocess.DEVNULL)


def page_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="mtc-data">\n(.*?)\n'
                  r'</script>', text, re.S)
    return text, json.loads(m.group(1))


def static_checks(name, text):
    """Nothing in the file can make the browser fetch anything."""
    scripts = re.findall(r"<script\b[^>]*>", text)
    check(name + ": only inline scripts",
          all("src" not in s for s in scripts), str(scripts))
    bad = [p for p in (r"<link\b", r"<img\b", r"<iframe\b", r"\burl\(",
                       r"@import", r"\bfetch\(", r"XMLHttpRequest",
                       r"WebSocket", r"EventSource", r"\bimport\(",
                       r"sendBeacon")
           if re.search(p, text)]
    check(name + ": no loading construct", not bad, str(bad))
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", text))
    urls.discard("http://www.w3.org/2000/svg")  # SVG's namespace name
    check(name + ": no address but SVG's namespace", not urls, str(urls))
    check(name + ": a CSP that forbids every fetch",
          "default-src 'none'" in text)


def folded_from_page(b):
    """The leaks view as the page's own data has it, in folded form (with
    verdicts, the definitely, indirectly and possibly lost bytes)."""
    return b.eval("""(() => {
      const D = JSON.parse(document.getElementById('mtc-data').textContent);
      const out = new Map();
      /* With verdicts, the lost classes' bytes of each stack. */
      const lost = D.stacks.leak_b.map((v) => (D.classes.length ? 0 : v));
      for (let k = 0; k < D.loss.length; k += 4)
        if (D.classes[D.loss[k + 1]].lost) lost[D.loss[k]] += D.loss[k + 2];
      D.stacks.frames.forEach((fr, i) => {
        const v = lost[i];
        if (!v) return;
        const key = fr.length ? fr.map((f) => D.frames.name[f]).join(';')
                              : '[no stack recorded]';
        out.set(key, (out.get(key) || 0) + v);
      });
      return Array.from(out, ([k, v]) => k + ' ' + v).sort().join('\\n');
    })()""")


def box_geometry(b, selector):
    return b.eval("""(() => {
      const e = document.querySelector(%s);
      if (!e) return null;
      const r = e.getBoundingClientRect();
      return {x: r.x, y: r.y, w: r.width, h: r.height};
    })()""" % json.dumps(selector))


def leak_range_pixels(data, c):
    """Chart x positions (as the page maps time to pixels: 64 px left and
    12 px right of the plot) of the median and the last leak's buckets."""
    iv, ser = data["intervals"], data["series"]
    t = ser["t"]
    leaks = sorted(iv[k + 1] for k in range(0, len(iv), 5) if iv[k + 2] == ser["never"])
    xmax = max(t[-1], 1e-9)

    def mid(k):
        return ((t[k - 1] if k > 0 else 0) + t[k]) / 2

    def px(x):
        return c["x"] + 64 + (c["w"] - 64 - 12) * x / xmax

    return px(mid(leaks[len(leaks) // 2])), px(mid(leaks[-1]))


def open_page(b, path, name):
    url = "file://" + path
    b.events.clear()
    t0 = time.monotonic()
    b.call("Page.navigate", {"url": url})
    b.wait_event("Page.loadEventFired")
    b.wait_for("document.body && document.body.dataset.ready === '1'")
    ms = (time.monotonic() - t0) * 1000
    print("    note: %s: ready %.0f ms after navigation" % (name, ms))
    return url


def network_checks(b, name, url):
    b.eval("1")  # collect pending events
    reqs = [e["params"]["request"]["url"] for e in b.events
            if e.get("method") == "Network.requestWillBeSent"]
    check(name + ": no request but the page itself",
          all(u == url for u in reqs), str(reqs))
    check(name + ": no resource loaded",
          b.eval("performance.getEntriesByType('resource').length") == 0)
    errors = [e["params"] for e in b.events
              if e.get("method") == "Runtime.exceptionThrown"]
    check(name + ": no script error", not errors, str(errors)[:500])


def flame_total(b):
    return int(b.eval("document.getElementById('flame').dataset.total"))


def lost_bytes(totals):
    """What the text report calls leaks: every unfreed block, or with
    verdicts the definitely, indirectly and possibly lost ones."""
    if "classes" not in totals:
        return totals["leaked_bytes"], totals["leaked_blocks"]
    return (sum(totals["classes"][k]["bytes"] for k in LOST),
            sum(totals["classes"][k]["blocks"] for k in LOST))


def live_bytes(totals):
    """Every block live at the end: with verdicts, every class and the
    suppressed blocks (totals.leaked_* count only the --fail-on classes)."""
    if "classes" not in totals:
        return totals["leaked_bytes"], totals["leaked_blocks"]
    return (sum(v["bytes"] for v in totals["classes"].values()),
            sum(v["blocks"] for v in totals["classes"].values()))


def column_texts(b, key):
    """The cells of one column of the stacks table, found by its header."""
    return b.eval("""(() => {
      const ths = Array.from(document.querySelectorAll('#stacks th'));
      const k = ths.findIndex((th) => th.dataset.key === %s);
      return Array.from(document.querySelectorAll('#stacks tr.row'))
        .map((r) => r.children[k].textContent);
    })()""" % json.dumps(key))


def flame_labels(b):
    return b.eval("Array.from(document.querySelectorAll('#flame text'))"
                  ".map((t) => t.textContent).join('|')")


def test_phases(b):
    log = os.path.join(OUT, "phases.log")
    page = os.path.join(OUT, "phases.html")
    trace(PHASES, log, LIB)
    run([CHECKER, "--quiet", "--html", page, PHASES, log])
    totals = json.loads(run([CHECKER, "--json", PHASES, log]))["totals"]
    folded = run([CHECKER, "--folded", log]).strip()
    text, data = page_data(page)
    static_checks("phases", text)
    check("phases: has time", data["summary"]["has_time"])
    check("phases: page figures are the report's",
          (data["summary"]["live_bytes"], data["summary"]["live_blocks"]) ==
          live_bytes(totals), "%s vs %s" % (data["summary"], live_bytes(totals)))

    url = open_page(b, page, "phases")
    # The flame graph and the chart are drawn.
    boxes = b.eval("document.querySelectorAll('#flame g.fr').length")
    check("phases: flame graph drawn", boxes >= 6, "boxes %s" % boxes)
    check("phases: flame graph weighs the leaks",
          flame_total(b) == lost_bytes(totals)[0],
          "%s vs %s" % (flame_total(b), lost_bytes(totals)))
    points = b.eval("(document.getElementById('live-curve')"
                    ".getAttribute('d').match(/L/g) || []).length")
    check("phases: chart drawn", points >= 2 * len(data["series"]["live"]),
          "points %s" % points)
    check("phases: peak marked", b.eval("!!document.getElementById('peak-mark')"))
    check("phases: page and --folded hold the same leaks",
          folded_from_page(b) == folded,
          "\n%s\n---\n%s" % (folded_from_page(b), folded))

    # A tooltip on hover.
    g = box_geometry(b, "#flame g.fr:last-child rect")
    b.mouse("mouseMoved", g["x"] + g["w"] / 2, g["y"] + g["h"] / 2, buttons=0)
    tip = b.eval("(() => { const t = document.getElementById('tooltip');"
                 " return t.hidden ? '' : t.textContent; })()")
    check("phases: tooltip with bytes", "bytes" in tip, repr(tip))

    # Clicking a box zooms: it then spans the whole width.
    width = b.eval("document.querySelector('#flame svg').getBoundingClientRect().width")
    target = b.eval("""(() => {
      let best = null;
      for (const g of document.querySelectorAll('#flame g.fr')) {
        const r = g.querySelector('rect').getBoundingClientRect();
        if (r.width < 0.8 * %f && r.width > 8 && (!best || r.width > best.w))
          best = {x: r.x + r.width / 2, y: r.y + r.height / 2, w: r.width,
                  i: g.getAttribute('data-i')};
      }
      return best;
    })()""" % width)
    check("phases: a narrow box to click", target is not None)
    if target:
        b.click(target["x"], target["y"])
        zoomed = b.eval("document.getElementById('flame').dataset.zoom")
        after = b.eval("""(() => {
          const y = %f;
          for (const g of document.querySelectorAll('#flame g.fr')) {
            const r = g.querySelector('rect').getBoundingClientRect();
            if (r.y <= y && y <= r.y + r.height) return r.width;
          }
          return 0; })()""" % target["y"])
        check("phases: click zooms", zoomed != "" and after > 0.95 * width,
              "zoom %r width %s of %s" % (zoomed, after, width))
        check("phases: zoom path shown",
              "Zoomed in" in b.eval("document.getElementById('crumbs').textContent"))
        b.call("Runtime.evaluate",
               {"expression": "document.getElementById('zoom-reset').click()"})
        check("phases: reset zoom",
              b.eval("document.getElementById('flame').dataset.zoom") == "")

    # Dragging across the chart redraws the graph for that time range.  The
    # range is chosen from the data, not from fractions of the run (under
    # load the phases take any share of it): from the middle of the bucket
    # holding the median leak to the middle of the last leak's bucket, so it
    # holds the later half of the leaks and none of the index.
    c = box_geometry(b, "#chart svg")
    y = c["y"] + c["h"] / 2
    drag_from, drag_to = leak_range_pixels(data, c)
    b.drag(drag_from, y, drag_to, y)
    view = b.eval("document.getElementById('flame').dataset.view")
    rng = b.eval("document.getElementById('flame').dataset.range")
    check("phases: a drag selects a range", view == "range" and rng, "%s %s" % (view, rng))
    if rng:
        lo, hi = map(int, rng.split(","))
        iv, never = data["intervals"], data["series"]["never"]
        want = sum(iv[k + 3] for k in range(0, len(iv), 5)
                   if lo <= iv[k + 1] <= hi and (iv[k + 2] == never or iv[k + 2] > hi))
        got = flame_total(b)
        check("phases: range graph is memray's temporal query",
              got == want and got > 0, "%s vs %s" % (got, want))
        check("phases: range graph differs from the leaks",
              got != live_bytes(totals)[0])
        check("phases: range marked on the chart",
              b.eval("!!document.getElementById('range-mark')"))
        names = b.eval("Array.from(document.querySelectorAll('#flame text'))"
                       ".map((t) => t.textContent).join('|')")
        check("phases: range shows the late leaks, not the index",
              "remember_name" in names and "index_entry" not in names, names[:300])

    # Views: live at the peak, all allocations.
    for value, key in (("peak", "peak_b"), ("all", "all_b")):
        b.eval("document.querySelector('input[name=view][value=%s]').click()" % value)
        check("phases: view %s" % value,
              flame_total(b) == sum(data["stacks"][key]),
              "%s vs %s" % (flame_total(b), sum(data["stacks"][key])))
        if value == "peak":
            check("phases: the peak view weighs the peak",
                  flame_total(b) == data["summary"]["peak_bytes"])

    # Search.
    b.eval("document.getElementById('search').focus()")
    b.call("Input.insertText", {"text": "remember_name"})
    b.wait_for("document.getElementById('search-result').textContent"
               ".startsWith('matched')")
    check("phases: search highlights",
          b.eval("document.querySelectorAll('#flame g.match').length") >= 1)

    # The table: sortable, rows open to their frames.
    rows = b.eval("document.querySelectorAll('#stacks tr.row').length")
    check("phases: table rows", rows == len(data["stacks"]["sid"]), str(rows))
    b.eval("document.querySelector('#stacks th[data-key=all_n]').click()")
    first = column_texts(b, "all_n")[:2]
    counts = [int(x.replace(",", "")) for x in first]
    check("phases: table sorts by allocations", counts[0] >= counts[1], str(first))
    b.eval("document.querySelector('#stacks tr.row').click()")
    frames = b.eval("(document.querySelector('#stacks tr.frames') || {}).textContent || ''")
    check("phases: a row opens to file:line", "phases.c:" in frames, frames[:200])

    shot = b.call("Page.captureScreenshot", {"format": "png"})
    png = os.path.join(OUT, "phases.png")
    with open(png, "wb") as f:
        import base64
        f.write(base64.b64decode(shot["data"]))
    check("phases: screenshot", os.path.getsize(png) > 10000)
    network_checks(b, "phases", url)


def test_hand_log(b):
    log = os.path.join(HERE, "logs", "hand.log")
    page = os.path.join(OUT, "hand.html")
    run([CHECKER, "--quiet", "--html", page, log])
    text, data = page_data(page)
    static_checks("hand", text)
    url = open_page(b, page, "hand")
    check("hand: leaks total", flame_total(b) == 123)
    labels = b.eval("Array.from(document.querySelectorAll('#flame text'))"
                    ".map((t) => t.textContent).join('|')")
    check("hand: labelled boxes", "main" in labels, labels)
    check("hand: peak at 2.5 ms",
          "2.50 ms" in b.eval("document.getElementById('summary').textContent"))
    network_checks(b, "hand", url)
    # The hand-checked verdicts (logs/classes.log, see cli-test.py).
    page = os.path.join(OUT, "hand-classes.html")
    run([CHECKER, "--quiet", "--html", page, os.path.join(HERE, "logs", "classes.log")])
    open_page(b, page, "hand with classes")
    check("hand classes: summary", summary_classes(b) == {
        "definitely_lost": (304, 2), "indirectly_lost": (64, 1),
        "possibly_lost": (128, 1), "still_reachable": (515, 2),
        "unknown": (8, 1), "suppressed": (16, 1)}, str(summary_classes(b)))
    check("hand classes: the leaks view weighs 304 + 64 + 128 bytes",
          flame_total(b) == 496, str(flame_total(b)))



def summary_classes(b):
    """The summary's class table: key -> (bytes, blocks), as drawn."""
    return {k: tuple(v) for k, v in b.eval("""Object.fromEntries(
      Array.from(document.querySelectorAll('#classes tr')).map((tr) =>
        [tr.dataset.key, [+tr.dataset.bytes, +tr.dataset.blocks]]))""").items()}


def test_classes(b):
    """A program with real leaks and blocks still reachable at exit: the
    page calls leaks what the text report does (the lost classes), its
    class table is --json's totals.classes, and the still reachable
    blocks are one tick away."""
    log = os.path.join(OUT, "classes.log")
    page = os.path.join(OUT, "classes.html")
    trace(CLASSES, log, LIB)
    run([CHECKER, "--quiet", "--html", page, CLASSES, log])
    totals = json.loads(run([CHECKER, "--json", CLASSES, log]))["totals"]
    cls = {k: (v["bytes"], v["blocks"]) for k, v in totals.get("classes", {}).items()}
    text, data = page_data(page)
    static_checks("classes", text)
    # The program as designed (progs/classes.c), so the checks below mean
    # something: a leak of each lost class and a reachable cache.
    check("classes: the scan found every class the program makes",
          cls.get("definitely_lost", (0,))[0] >= 3000 and
          cls.get("indirectly_lost", (0,))[0] >= 7 * 64 and
          cls.get("possibly_lost", (0,))[0] >= 1000 and
          cls.get("still_reachable", (0,))[0] >= 16 * 256, str(cls))
    url = open_page(b, page, "classes")
    shown = summary_classes(b)
    want = dict(cls)
    if want.get("unknown") == (0, 0):
        del want["unknown"]  # the text report leaves it out too
    check("classes: summary classes are --json's totals.classes",
          shown == want, "%s vs %s" % (shown, want))
    lost_b, lost_n = lost_bytes(totals)
    leaked = b.eval("[+document.getElementById('leaked').dataset.bytes,"
                    " +document.getElementById('leaked').dataset.blocks]")
    check("classes: 'leaked' is definitely + indirectly + possibly lost",
          leaked == [lost_b, lost_n], "%s vs %s" % (leaked, (lost_b, lost_n)))
    check("classes: the leaks view weighs only lost bytes",
          flame_total(b) == lost_b and lost_b < live_bytes(totals)[0],
          "%s vs lost %s, live %s" % (flame_total(b), lost_b, live_bytes(totals)))
    folded = run([CHECKER, "--folded", CLASSES, log]).strip()
    check("classes: page and --folded hold the same leaks",
          folded_from_page(b) == folded and "fill_cache" not in folded,
          "\n%s\n---\n%s" % (folded_from_page(b), folded))
    labels = flame_labels(b)
    check("classes: the leaks view shows the leaks, not the cache",
          "lose_buffer" in labels and "fill_cache" not in labels, labels[:300])
    check("classes: the title names the lost classes",
          "definitely, indirectly, possibly lost" in
          b.eval("document.getElementById('flame-title').textContent"))
    # Still reachable: tick it, untick the lost classes.
    b.eval("""(() => { for (const cb of document.querySelectorAll('#class-filter input'))
      if (cb.checked !== (cb.value === 'still_reachable')) cb.click(); })()""")
    check("classes: still reachable at a tick",
          flame_total(b) == cls["still_reachable"][0] and
          b.eval("document.getElementById('flame').dataset.classes") == "still_reachable",
          "%s vs %s" % (flame_total(b), cls["still_reachable"]))
    check("classes: the reachable view shows the cache",
          "fill_cache" in flame_labels(b) and "lose_buffer" not in flame_labels(b))
    # The table: the class of each stack's blocks, lost bytes apart.
    names, classes, lost = (column_texts(b, k) for k in ("name", "class", "lost_b"))
    rows = dict(zip([n.split(" ")[0] for n in names], zip(classes, lost)))
    check("classes: table says which stacks leak",
          rows.get("lose_buffer", ("",))[0] == "definitely lost" and
          rows.get("fill_cache") == ("still reachable", "0 B") and
          rows.get("hold_interior", ("",))[0] == "possibly lost", str(rows))
    network_checks(b, "classes", url)

    # Without verdicts (MEMLEAK_CONFIG=reach=0) the page is as before them:
    # every block live at the end is a leak.
    trace(CLASSES, log, LIB, {"MEMLEAK_CONFIG": "reach=0"})
    run([CHECKER, "--quiet", "--html", page, CLASSES, log])
    totals = json.loads(run([CHECKER, "--json", CLASSES, log]))["totals"]
    text, data = page_data(page)
    open_page(b, page, "classes reach=0")
    check("reach=0: no classes", data["classes"] == [] and "classes" not in totals)
    check("reach=0: every live block is a leak",
          flame_total(b) == totals["leaked_bytes"] ==
          int(b.eval("document.getElementById('leaked').dataset.bytes")) and
          "fill_cache" in flame_labels(b))
    check("reach=0: no class filter, no class column",
          b.eval("document.getElementById('class-filter').hidden") and
          b.eval("!document.querySelector('#stacks th[data-key=class]')"))


def diff_boxes(b):
    """The differential view's boxes: name -> [change in bytes, fill]."""
    return b.eval("""Object.fromEntries(Array.from(
      document.querySelectorAll('#flame g.fr[data-change]')).map((g) =>
        [g.dataset.name, [+g.dataset.change, g.querySelector('rect').getAttribute('fill')]]))""")


def test_diff(b):
    """mtrace-check --diff --html: two runs of progs/runs.c, the second
    with one more leak, one that grew and one that shrank.  The page opens
    on the differential flame graph: each stack as wide as the larger of
    its two runs, red where the bytes grew, blue where they shrank, grey
    where they stayed; the summary counts what --json's diff lists.  The
    table shows what the leaked string held."""
    logs = {}
    for run_name in ("old", "new"):
        logs[run_name] = os.path.join(OUT, "runs-%s.log" % run_name)
        for f in os.listdir(OUT):
            if f.startswith(os.path.basename(logs[run_name])):
                os.unlink(os.path.join(OUT, f))
        env = dict(os.environ, MALLOC_TRACE=logs[run_name], LD_PRELOAD=LIB)
        env.pop("MEMLEAK_CONFIG", None)
        subprocess.run([RUNS, run_name], env=env, check=True, timeout=300)
    page = os.path.join(OUT, "diff.html")
    run([CHECKER, "--quiet", "--diff", "--html", page, RUNS, logs["old"], logs["new"]])
    d = json.loads(run([CHECKER, "--json", "--diff", RUNS, logs["old"], logs["new"]]))
    check("diff: --json lists the new, the grown",
          [r["frames"][0]["function"] for r in d["new"]] == ["leak_extra"] and
          [r["frames"][0]["function"] for r in d["grown"]] == ["grow_cache"] and
          d["gone"] == [], json.dumps(d)[:400])
    text, data = page_data(page)
    static_checks("diff", text)
    url = open_page(b, page, "diff")
    view = b.eval("document.getElementById('flame').dataset.view")
    check("diff: the page opens on the differential view", view == "diff", view)
    card = b.eval("(() => { const c = document.getElementById('diff-card');"
                  " return c ? [+c.dataset.new, +c.dataset.gone, +c.dataset.grown] : null; })()")
    check("diff: the summary counts the comparison",
          card == [len(d["new"]), len(d["gone"]), len(d["grown"])], str(card))
    boxes = diff_boxes(b)
    want = {"leak_extra": 8192, "grow_cache": 4096, "shrink_pool": -4096, "leak_text": 0}
    got = {k: boxes.get(k, [None])[0] for k in want}
    check("diff: each stack's change", got == want, "%s vs %s" % (got, boxes))
    fills = {k: boxes.get(k, [0, ""])[1] for k in want}
    check("diff: red grows, blue shrinks, grey stays",
          fills["leak_extra"].startswith("rgb(255,") and
          fills["grow_cache"].startswith("rgb(255,") and
          re.match(r"rgb\(\d+,\d+,255\)", fills["shrink_pool"]) is not None and
          fills["leak_text"] == "rgb(220,220,220)", str(fills))
    # Widths: the larger of the two runs (shrink_pool: its old 6144 bytes).
    check("diff: as wide as the larger run",
          flame_total(b) == 4096 + 8192 + 6144 + 8192, str(flame_total(b)))
    # The leaked string's text, under its stack's frames in the table.
    b.eval("""(() => { for (const r of document.querySelectorAll('#stacks tr.row'))
      if (r.textContent.includes('leak_text')) r.click(); })()""")
    shown = b.eval("Array.from(document.querySelectorAll('#stacks .block'))"
                   ".map((e) => e.textContent).join('|')")
    check("diff: the table shows what the string held",
          "|session token: 1234" in shown, shown)
    network_checks(b, "diff", url)


def end_note(b):
    """The page's note on how the log ends, as shown, or None."""
    return b.eval("(() => { const n = document.getElementById('end-note');"
                  " return n && n.offsetHeight > 0 ? n.textContent : null; })()")


def test_cut_log(b):
    """A log that ends early (no "#e": the program was killed) says so on
    the page in the text report's words, above the summary; a complete
    log's page says nothing of the kind."""
    log = os.path.join(OUT, "cut-classes.log")
    page = os.path.join(OUT, "cut.html")
    trace(CLASSES, log, LIB)
    whole = open(log, "rb").read()
    end = re.search(rb"^#e [^\n]*\n", whole, re.M)
    check("cut: the traced log has an #e record", end is not None)
    if end is None:
        return
    cut = log + ".cut"
    with open(cut, "wb") as f:
        f.write(whole[:end.start()])
    text = run([CHECKER, "--quiet", CLASSES, cut])
    said = " ".join(text[text.find("The log ends early"):].split())
    check("cut: the text report says the log ends early", said != "", text[-300:])
    run([CHECKER, "--quiet", "--html", page, CLASSES, cut])
    open_page(b, page, "cut log")
    note = end_note(b)
    check("cut: the page shows the text report's warning",
          note is not None and " ".join(note.split()) == said, "%r vs %r" % (note, said))
    check("cut: the warning comes before the summary", b.eval(
        "(() => { const n = document.getElementById('end-note');"
        " return !!n && !!(n.compareDocumentPosition(document.getElementById('summary'))"
        " & Node.DOCUMENT_POSITION_FOLLOWING); })()"))
    run([CHECKER, "--quiet", "--html", page, CLASSES, log])
    open_page(b, page, "complete log")
    check("complete: no warning on the page", end_note(b) is None, str(end_note(b)))


def test_classic_log(b):
    """glibc's own tracer: no stacks, no time; the page still works."""
    if not os.path.exists(GLIBC_DEBUG):
        check("classic: glibc's libc_malloc_debug.so present", False)
        return
    log = os.path.join(OUT, "classic.log")
    page = os.path.join(OUT, "classic.html")
    trace(PHASES, log, GLIBC_DEBUG)
    totals = json.loads(run([CHECKER, "--json", log]))["totals"]
    run([CHECKER, "--quiet", "--html", page, log])
    url = open_page(b, page, "classic")
    check("classic: one box for blocks without a stack",
          "[no stack recorded]" in b.eval("document.getElementById('flame').textContent"))
    check("classic: leaks total", flame_total(b) == totals["leaked_bytes"])
    check("classic: chart in log lines",
          "line" in b.eval("document.getElementById('chart').textContent"))
    network_checks(b, "classic", url)


def test_growth(b):
    """Periodic scans (scan_every, progs/growth.c of the integration
    tests): the page charts the stack whose still reachable bytes keep
    growing, with --json's figures; a log without them has no such chart."""
    log = os.path.join(OUT, "growth.log")
    page = os.path.join(OUT, "growth.html")
    trace(GROWTH, log, LIB, {"MEMLEAK_CONFIG": "scan_every=0.5"})
    run([CHECKER, "--quiet", "--html", page, GROWTH, log])
    growth = json.loads(run([CHECKER, "--json", GROWTH, log]))["growth"]
    text, data = page_data(page)
    static_checks("growth", text)
    check("growth: one growing stack, add_node",
          [g["frames"][0]["function"] for g in growth] == ["add_node"],
          str([g["frames"][0]["function"] for g in growth]))
    url = open_page(b, page, "growth")
    check("growth: the section is shown",
          not b.eval("document.getElementById('growth-section').hidden"))
    lines = b.eval("Array.from(document.querySelectorAll('#growth-chart path.growth-line'))"
                   ".map(p => p.dataset.fingerprint)")
    check("growth: one line per growing stack, named by its fingerprint",
          lines == [g["fingerprint"] for g in growth], "%s" % lines)
    legend = b.eval("document.getElementById('growth-legend').textContent")
    check("growth: the legend names the function", "add_node" in legend, legend)
    check("growth: the page's points are --json's bytes at each scan",
          data["growth"]["stacks"][0]["bytes"] == growth[0]["bytes_at_scans"])
    network_checks(b, "growth", url)
    # The classes program has no periodic scans: no growth chart.
    page = os.path.join(OUT, "classes.html")
    open_page(b, page, "classes (no growth)")
    check("growth: hidden without periodic scans",
          b.eval("document.getElementById('growth-section').hidden"))


def test_rss(b):
    """A program that maps and touches 100 MiB: the page's resident memory
    reaches it (data, summary card, the curve beside the heap's), as the
    text report's peak RSS and --json's do; the lock resource it keeps is
    in the page's resources table."""
    log = os.path.join(OUT, "rssmap.log")
    page = os.path.join(OUT, "rssmap.html")
    mib100 = 100 << 20
    trace(RSSMAP, log, LIB)
    doc = json.loads(run([CHECKER, "--json", RSSMAP, log]))
    check("rss: --json's peak reaches 100 MiB",
          doc.get("rss", {}).get("peak_anon", 0) >= mib100, str(doc.get("rss")))
    text = run([CHECKER, RSSMAP, log])
    m = re.search(r"Peak resident memory \(RSS\): ([0-9,]+) bytes", text)
    check("rss: the text report's peak reaches 100 MiB",
          m is not None and int(m.group(1).replace(",", "")) >= mib100,
          text[-400:])
    run([CHECKER, "--quiet", "--html", page, RSSMAP, log])
    html, data = page_data(page)
    static_checks("rss", html)
    rss = data.get("rss")
    check("rss: the page's data has samples by bucket",
          rss is not None and len(rss["anon"]) == len(data["series"]["live"]),
          str(rss)[:200])
    if rss is None:
        return
    top = max(a + f for a, f in zip(rss["anon"], rss["file"]))
    check("rss: a bucket's resident memory reaches 100 MiB", top >= mib100,
          str(top))
    check("rss: the page's peak is --json's", rss["peak"] == doc["rss"]["peak_bytes"])
    url = open_page(b, page, "rss")
    check("rss: the curve is drawn",
          b.eval("!!document.getElementById('rss-curve')"))
    check("rss: the chart's scale holds it",
          b.eval("document.getElementById('chart').textContent").find("RSS") >= 0)
    check("rss: the summary card",
          b.eval("document.getElementById('rss-peak').dataset.bytes") == str(rss["peak"]))
    kinds = b.eval("Array.from(document.querySelectorAll('#resources tbody tr'))"
                   ".map((r) => r.dataset.kind + ' ' + r.children[3].textContent)")
    check("rss: the resources table lists the lock taken in take_lock",
          len(kinds) == 1 and kinds[0].startswith("lock ") and "take_lock" in kinds[0],
          str(kinds))
    network_checks(b, "rss", url)


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
        for test in (test_phases, test_hand_log, test_classes, test_cut_log,
                     test_classic_log, test_diff, test_growth, test_rss):
            try:
                test(b)
            except Exception as e:  # a broken page must not end the run
                check(test.__name__, False, repr(e))
    finally:
        b.close()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
