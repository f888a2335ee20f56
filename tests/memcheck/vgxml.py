#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# vgxml.py FILE - reads a valgrind memcheck XML file (protocol 4) and
# prints one line per leak error, sorted: "KIND LEAKEDBYTES LEAKEDBLOCKS".
# Exits 1 (with the reason) when the file is not well-formed XML or not
# memcheck's protocol 4, or an error lacks what the protocol requires.
import sys
import xml.etree.ElementTree as ET


def fail(why):
    print(f"vgxml.py: {sys.argv[1]}: {why}", file=sys.stderr)
    sys.exit(1)


try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    fail(f"not well-formed: {e}")
if root.tag != "valgrindoutput":
    fail(f"root element {root.tag}")
if root.findtext("protocolversion") != "4":
    fail("protocolversion is not 4")
if root.findtext("protocoltool") != "memcheck":
    fail("protocoltool is not memcheck")
for tag in ("pid", "ppid", "tool"):
    if root.find(tag) is None:
        fail(f"no <{tag}>")
states = [s.findtext("state") for s in root.findall("status")]
if states != ["RUNNING", "FINISHED"]:
    fail(f"status states {states}")
rows = []
for e in root.findall("error"):
    kind = e.findtext("kind")
    for tag in ("unique", "tid"):
        if e.find(tag) is None:
            fail(f"an error without <{tag}>")
    frames = e.findall("stack/frame")
    if not frames or any(f.find("ip") is None for f in frames):
        fail("an error without a stack of frames with <ip>")
    if not kind.startswith("Leak_"):
        continue
    x = e.find("xwhat")
    if x is None or x.findtext("text") is None:
        fail("a leak error without <xwhat><text>")
    rows.append(f"{kind} {x.findtext('leakedbytes')} {x.findtext('leakedblocks')}")
for r in sorted(rows):
    print(r)
