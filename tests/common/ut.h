/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ut.h - the one Check scaffold of every unit suite (tests/unit,
 * tests/checker/unit, tests/fastunwind): how suites are run, timeouts, the
 * cheap in-loop check and the seed of randomized tests.  See tests/README.md.
 */
#ifndef TESTS_UT_H
#define TESTS_UT_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Seconds a test may take before Check kills it, unless its test case sets
 * its own.  Generous on purpose: tests are correct or wrong, never fast or
 * slow, and a slow loaded machine must not fail them.  CK_DEFAULT_TIMEOUT
 * in the environment replaces it, CK_TIMEOUT_MULTIPLIER scales every
 * timeout (the sanitizer builds use it). */
#define UT_TIMEOUT 240

/* A check for hot loops.  Check's ck_assert_* marks a checkpoint on every
 * passing call, which in fork mode is a write(2) to the parent: a million
 * of them take seconds of system time.  UT_CHECK only calls into Check when
 * COND is false.  Usage: UT_CHECK(cond) or UT_CHECK(cond, "fmt", args). */
#define UT_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (__builtin_expect(!(cond), 0))                                      \
            _ck_assert_failed(__FILE__, __LINE__,                              \
                              "Check '" #cond "' failed", ##__VA_ARGS__);      \
    } while (0)

typedef Suite *(*ut_suite_fn)(void);

/* Runs the N suites (every test in a child process of its own, whatever
 * CK_FORK says), prints Check's "Checks: N, Failures: F, Errors: E" line
 * and returns main's exit status.  Check's own variables pick what runs:
 * CK_RUN_SUITE=name, CK_RUN_CASE=name, CK_VERBOSITY=verbose. */
int ut_main(size_t n, const ut_suite_fn suites[]);

/* The seed of a randomized test: FALLBACK, mixed with $TEST_SEED when that
 * is set (ut_main prints it), so a run reproduces from its printed seed. */
uint64_t ut_seed(uint64_t fallback);

#endif
