# SPDX-License-Identifier: GPL-3.0-or-later
# real-py.py - the python3 workload of `make -C bench real` (realbench.py):
# builds N records (default 150000) with the json, re and collections
# modules, round-trips them through JSON text and tallies them.  Most of
# its small objects come from pymalloc's arenas; strings, dicts and lists
# that grow past 512 bytes come from malloc, which tracers see.
# Copyright (C) 2026 the libmtrace authors.
import collections
import json
import re
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 150000
WORD = re.compile(r"[a-z]+_(\d+)")

records = []
for i in range(N):
    name = "item_%d" % i
    records.append({"id": i, "name": name, "tags": ["t%d" % (i % 7)] * (i % 5),
                    "text": " ".join(name for _ in range(i % 9))})
text = json.dumps(records)
back = json.loads(text)
counts = collections.Counter()
groups = collections.defaultdict(list)
for r in back:
    m = WORD.match(r["name"])
    key = int(m.group(1)) % 97 if m else -1
    counts[key] += len(r["tags"])
    groups[key].append(r["text"][:20])
order = collections.OrderedDict(sorted(counts.items()))
print(len(back), len(order), sum(len(v) for v in groups.values()))
