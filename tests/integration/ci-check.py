#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# ci-check.py - checks of mtrace-check's CI outputs for tests-ci.sh, each
# file read by a real parser: the SARIF file validated against the OASIS
# SARIF 2.1.0 schema (schemas/, with python3-jsonschema), the JUnit file
# parsed as XML (expat), the Code Quality file as JSON; then what each
# must say about progs/ci_leaks.c's leaks.  Prints what is wrong, exits 1.
#   ci-check.py sarif FILE SCHEMA SRCROOT RESULTS
#   ci-check.py junit FILE LOG:TESTS:FAILURES:SKIPPED...
#   ci-check.py codequality FILE SRCROOT ISSUES
#   ci-check.py records JSON   "FP CLASS BYTES SUPPRESSED_BY BASELINE" per
#                              loss record of --json's output (- for none)
# A log without reachability verdicts: every record of the kind "not
# freed (no reachability verdict)", RECORDS of them, BYTES in all:
#   ci-check.py nv-sarif FILE SCHEMA RECORDS BYTES
#   ci-check.py nv-junit FILE RECORDS
#   ci-check.py nv-codequality FILE RECORDS BYTES
#   ci-check.py nv-xml FILE RECORDS BYTES   (valgrind's XML, protocol 4's
#                              order of an error's elements)
# Resources not released (progs/beyond.c), each KIND acquired in FUNCTION
# (and the 3001-byte pool block located at pool_get),
# once, LEVEL "error" or "warning" (--fail-on=none):
#   ci-check.py resources SARIF SCHEMA JUNIT CODEQUALITY SRCROOT LEVEL KIND:FUNCTION...
import json
import re
import sys
import xml.etree.ElementTree as ET

FP = re.compile(r"^[0-9a-f]{16}(\.[1-9][0-9]*)?$")
problems = []


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


def source_line(root, path, line):
    with open(f"{root}/{path}") as f:
        lines = f.read().split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def sarif(path, schema_path, root, want):
    import jsonschema
    with open(schema_path) as f:
        schema = json.load(f)
    with open(path) as f:
        doc = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    errors = list(cls(schema).iter_errors(doc))
    for e in errors[:5]:
        check(False, f"schema: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    if errors:
        return
    check(doc["version"] == "2.1.0", "version")
    check(len(doc["runs"]) == 1, "one run")
    run = doc["runs"][0]
    check(run["originalUriBaseIds"]["SRCROOT"]["uri"] == f"file://{root}/",
          f"SRCROOT is {run['originalUriBaseIds']['SRCROOT']}")
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    res = run["results"]
    check(len(res) == want, f"{len(res)} results, want {want}")
    for r in res:
        check(rules[r["ruleIndex"]] == r["ruleId"], f"ruleIndex of {r['ruleId']}")
        want_level = "error" if r["ruleId"] == "definitely-lost" else "warning"
        check(r["level"] == want_level, f"level {r['level']} for {r['ruleId']}")
        check(FP.match(r["partialFingerprints"]["mtraceLossRecord/v1"]),
              "fingerprint")
        loc = r["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        check(uri == "progs/ci_leaks.c" and
              loc["artifactLocation"].get("uriBaseId") == "SRCROOT",
              f"location {loc['artifactLocation']}")
        size = r["properties"]["bytes"] // r["properties"]["blocks"]
        line = source_line(root, uri, loc["region"]["startLine"])
        check(f"malloc({size})" in line and "ci-leak:" in line,
              f"{size}-byte leak located at {uri}:{loc['region']['startLine']}: {line!r}")
        check(len(r["stacks"][0]["frames"]) >= 2, "stack frames")


def junit(path, specs):
    suites = ET.parse(path).getroot()
    check(suites.tag == "testsuites", "root element")
    got = suites.findall("testsuite")
    check(len(got) == len(specs), f"{len(got)} testsuites, want {len(specs)}")
    for s, spec in zip(got, specs):
        log, tests, failures, skipped = spec.rsplit(":", 3)
        cases = s.findall("testcase")
        nfail = sum(1 for c in cases if c.find("failure") is not None)
        nskip = sum(1 for c in cases if c.find("skipped") is not None)
        check(s.get("name") == log, f"suite {s.get('name')}, want {log}")
        check((len(cases), nfail, nskip) == (int(tests), int(failures), int(skipped)),
              f"{log}: {len(cases)} tests, {nfail} failures, {nskip} skipped; want {spec}")
        check((s.get("tests"), s.get("failures"), s.get("skipped")) ==
              (tests, failures, skipped), f"{log}: counts in the attributes")
        names = [c.get("name") for c in cases]
        check(len(set(names)) == len(names), f"{log}: test names repeat: {names}")
        for c in cases:
            f = c.find("failure")
            if f is not None:
                check(f.get("message") and "#0 " in (f.text or ""),
                      f"{c.get('name')}: failure without message or stack")


def codequality(path, root, want):
    with open(path) as f:
        issues = json.load(f)
    check(isinstance(issues, list) and len(issues) == want,
          f"{len(issues)} issues, want {want}")
    fps = [i["fingerprint"] for i in issues]
    check(len(set(fps)) == len(fps), "fingerprints repeat")
    for i in issues:
        for key, t in (("description", str), ("check_name", str),
                       ("fingerprint", str), ("severity", str)):
            check(isinstance(i.get(key), t), f"{key} missing")
        check(i["severity"] in ("info", "minor", "major", "critical", "blocker"),
              f"severity {i['severity']}")
        p = i["location"]["path"]
        check(not p.startswith("/") and not p.startswith("./"), f"path {p}")
        line = i["location"]["lines"]["begin"]
        check(isinstance(line, int) and "ci-leak:" in source_line(root, p, line),
              f"issue at {p}:{line}")


def records(path):
    with open(path) as f:
        doc = json.load(f)
    for r in doc.get("loss_records", []):
        print(r["fingerprint"], r["class"], r["bytes"],
              r["suppressed_by"] or "-", r.get("baseline", "-"))


NV_WORDS = "not freed (no reachability verdict)"
BYTES_OF = re.compile(r"^(\d+) bytes in (\d+) blocks are " + re.escape(NV_WORDS))


def nv_sarif(path, schema_path, want, nbytes):
    import jsonschema
    with open(schema_path) as f:
        schema = json.load(f)
    with open(path) as f:
        doc = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    errors = list(cls(schema).iter_errors(doc))
    for e in errors[:5]:
        check(False, f"schema: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    if errors:
        return
    run = doc["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    res = run["results"]
    check(len(res) == want, f"{len(res)} results, want {want}")
    total = 0
    for r in res:
        check(r["ruleId"] == "not-freed" and rules[r["ruleIndex"]] == "not-freed",
              f"rule {r['ruleId']} at {r['ruleIndex']}")
        check(r["level"] == "error", f"level {r['level']}")
        m = BYTES_OF.match(r["message"]["text"])
        check(m is not None, f"message {r['message']['text']!r}")
        total += r["properties"]["bytes"]
        check(FP.match(r["partialFingerprints"]["mtraceLossRecord/v1"]), "fingerprint")
    check(total == nbytes, f"{total} bytes, want {nbytes}")


def nv_junit(path, want):
    cases = ET.parse(path).getroot().findall("testsuite/testcase")
    check(len(cases) == want, f"{len(cases)} tests, want {want}")
    for c in cases:
        f = c.find("failure")
        check(c.get("name", "").startswith(NV_WORDS + " in "), f"name {c.get('name')}")
        check(f is not None and f.get("type") == "not-freed" and
              BYTES_OF.match(f.get("message", "")), f"{c.get('name')}: failure")


def nv_codequality(path, want, nbytes):
    with open(path) as f:
        issues = json.load(f)
    check(len(issues) == want, f"{len(issues)} issues, want {want}")
    total = 0
    for i in issues:
        check(i["check_name"] == "not-freed", f"check_name {i['check_name']}")
        check(i["fingerprint"].endswith(":not-freed"), f"fingerprint {i['fingerprint']}")
        m = BYTES_OF.match(i["description"])
        check(m is not None, f"description {i['description']!r}")
        total += int(m.group(1)) if m else 0
    check(total == nbytes, f"{total} bytes, want {nbytes}")


# Protocol 4: an error's elements in this order (valgrind's
# docs/internals/xml-output-protocol4.txt, ERROR).
ERROR_ORDER = ["unique", "tid", "threadname", "kind", "what", "xwhat",
               "stack", "auxwhat", "xauxwhat", "origin", "suppression"]


def nv_xml(path, want, nbytes):
    root = ET.parse(path).getroot()
    errors = root.findall("error")
    check(len(errors) == want, f"{len(errors)} errors, want {want}")
    total = 0
    for e in errors:
        tags = [c.tag for c in e]
        ranks = [ERROR_ORDER.index(t) if t in ERROR_ORDER else -1 for t in tags]
        check(-1 not in ranks and ranks == sorted(ranks), f"element order {tags}")
        check(e.findtext("kind") == "Leak_DefinitelyLost", f"kind {e.findtext('kind')}")
        check(NV_WORDS in (e.findtext("auxwhat") or ""), "no auxwhat saying not freed")
        total += int(e.findtext("xwhat/leakedbytes"))
    check(total == nbytes, f"{total} bytes, want {nbytes}")


RES_ID = "resource-not-released"


def resources(sarif_path, schema_path, junit_path, cq_path, root, level, specs):
    import jsonschema
    want = dict(s.split(":") for s in specs)
    with open(schema_path) as f:
        schema = json.load(f)
    with open(sarif_path) as f:
        doc = json.load(f)
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(doc))
    for e in errors[:5]:
        check(False, f"schema: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    run = doc["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    check(rules.count(RES_ID) == 1, f"rules {rules}")
    fps = {}
    for r in run["results"]:
        if r["ruleId"] != RES_ID:
            continue
        check(rules[r["ruleIndex"]] == RES_ID, "ruleIndex")
        check(r["level"] == level, f"level {r['level']}, want {level}")
        kind, count = r["properties"]["kind"], r["properties"]["count"]
        text = r["message"]["text"]
        check(text.startswith(f"{count} {kind} not released, acquired in {want.get(kind)} ("),
              f"message {text!r}")
        loc = r["locations"][0]
        fn = loc["logicalLocations"][0]["fullyQualifiedName"]
        phys = loc["physicalLocation"]
        uri = phys["artifactLocation"]["uri"]
        check(fn == want.get(kind) and uri == "progs/beyond.c",
              f"{kind} located in {fn} at {uri}")
        line = source_line(root, uri, phys["region"]["startLine"])
        check(re.search(r"\bopen\(|memleak_resource_acquire\(", line), f"{kind} at line {line!r}")
        fp = r["partialFingerprints"]["mtraceLossRecord/v1"]
        check(FP.match(fp) and kind not in fps, f"{kind}: fingerprint {fp}")
        fps[kind] = fp
    check(sorted(fps) == sorted(want), f"SARIF resources {sorted(fps)}, want {sorted(want)}")
    # the pool's lost block: at the pool's code, not memleak.h's wrapper
    pool = [r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
            for r in run["results"] if r["ruleId"] == "definitely-lost" and
            r["properties"]["bytes"] == 3001]
    check(pool == ["pool_get"], f"pool block located in {pool}")
    cases = [c for c in ET.parse(junit_path).getroot().iter("testcase")
             if " not released in " in (c.get("name") or "")]
    got = {}
    for c in cases:
        kind, rest = c.get("name").split(" not released in ")
        fn, fp = rest.rstrip("]").split(" [")
        got[kind] = (fn, fp)
        f = c.find("failure")
        check((f is not None) == (level == "error"), f"{kind}: failure element")
        if f is not None:
            check(f.get("type") == RES_ID and f"#0 {fn} at " in f.text, f"{kind}: failure {f.text!r}")
    check(got == {k: (want[k], fps.get(k)) for k in want}, f"JUnit resources {got}")
    with open(cq_path) as f:
        issues = [i for i in json.load(f) if i["check_name"] == RES_ID]
    got = {}
    for i in issues:
        kind = i["description"].split()[1]
        got[kind] = (i["fingerprint"], i["location"]["path"])
        check(i["description"].startswith(f"1 {kind} not released, acquired in {want.get(kind)}"),
              f"description {i['description']!r}")
    check(got == {k: (f"{fps.get(k)}:{RES_ID}", "progs/beyond.c") for k in want},
          f"Code Quality resources {got}")
    for kind, fp in sorted(fps.items()):
        print(kind, fp)


def main(argv):
    cmd = argv[1]
    if cmd == "sarif":
        sarif(argv[2], argv[3], argv[4], int(argv[5]))
    elif cmd == "junit":
        junit(argv[2], argv[3:])
    elif cmd == "codequality":
        codequality(argv[2], argv[3], int(argv[4]))
    elif cmd == "records":
        records(argv[2])
    elif cmd == "nv-sarif":
        nv_sarif(argv[2], argv[3], int(argv[4]), int(argv[5]))
    elif cmd == "nv-junit":
        nv_junit(argv[2], int(argv[3]))
    elif cmd == "nv-codequality":
        nv_codequality(argv[2], int(argv[3]), int(argv[4]))
    elif cmd == "resources":
        resources(*argv[2:8], argv[8:])
    elif cmd == "nv-xml":
        nv_xml(argv[2], int(argv[3]), int(argv[4]))
    for p in problems:
        print(f"{cmd}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
