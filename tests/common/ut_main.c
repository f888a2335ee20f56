/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ut_main.c - the runner every unit suite's main() calls (ut.h). */
#define _GNU_SOURCE
#include "ut.h"

#include <stdio.h>
#include <stdlib.h>

#define STR2(x) #x
#define STR(x) STR2(x)

static uint64_t seed_from_env(int *set)
{
    const char *s = getenv("TEST_SEED");
    char *end;
    unsigned long long v;

    *set = 0;
    if (!s || !*s)
        return 0;
    v = strtoull(s, &end, 0);
    if (*end) {
        fprintf(stderr, "TEST_SEED=%s: not a number, ignored\n", s);
        return 0;
    }
    *set = 1;
    return v;
}

uint64_t ut_seed(uint64_t fallback)
{
    int set;
    uint64_t s = seed_from_env(&set);

    /* A multiplier with good bit mixing: TEST_SEED=1 and 2 differ in
     * every test's seed, not just in the low bit. */
    return set ? fallback ^ (s * 0x9e3779b97f4a7c15ull) : fallback;
}

int ut_main(size_t n, const ut_suite_fn suites[])
{
    int set;
    uint64_t seed = seed_from_env(&set);

    /* Read by tcase_create(): set before the suites make their cases. */
    setenv("CK_DEFAULT_TIMEOUT", STR(UT_TIMEOUT), 0);
    if (set)
        printf("TEST_SEED=%llu\n", (unsigned long long)seed);
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < n; i++)
        srunner_add_suite(sr, suites[i]());
    /* Fresh process-wide state per test, and timeouts that work. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed && set)
        printf("(TEST_SEED=%llu)\n", (unsigned long long)seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
