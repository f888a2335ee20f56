# SPDX-License-Identifier: GPL-3.0-or-later
# tally.py - the pass/fail count of the Python tests (tests/html,
# tests/pprof): one line per check, and the closing "N passed, N failed" that tests/run-all.sh reads.

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS: " + name)
    else:
        failed += 1
        print("FAIL: %s %s" % (name, detail))


def summary():
    """Prints the closing line; returns the exit status."""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
