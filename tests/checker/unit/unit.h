/* SPDX-License-Identifier: GPL-3.0-or-later */
/* unit.h - the Check unit suites of mtrace-check: each suite file
 * (unit/NAME.c, built into build/unit_NAME) defines make_suite() and gets
 * main() from here; the runner is the shared one (tests/common/ut.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef UNIT_H
#define UNIT_H

#include "ut.h"
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

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
    static const ut_suite_fn suites[] = { make_suite };
    return ut_main(1, suites);
}

#endif
