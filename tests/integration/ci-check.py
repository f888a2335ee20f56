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
    for p in problems:
        print(f"{cmd}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
