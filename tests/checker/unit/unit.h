/* unit.h - shared scaffolding for the Check unit suites of mtrace-check:
 * each suite file defines make_suite() and gets main() from here.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef UNIT_H
#define UNIT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

Suite *make_suite(void);

static inline struct slice S(const char *s) {
    return (struct slice){ s, strlen(s) };
}

/* Deterministic pseudo-random numbers for differential tests. */
static inline unsigned
rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

int main(void)
{
    SRunner *sr = srunner_create(make_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
