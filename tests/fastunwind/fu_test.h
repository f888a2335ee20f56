/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fu_test.h - what the fastunwind suites share: the comparison against
 * libunwind (compare.h) as a Check assertion, and the call chains both
 * test files walk through. */
#ifndef FU_TEST_H
#define FU_TEST_H
#include "compare.h"
#include "unwind/fastunwind.h"
#include "ut.h"
#include <stdio.h>
#include <stdlib.h>

static char why[16384];

/* FU_SHOW=1 in the environment prints every compared stack. */
static inline void show(const struct capture *c)
{
    if (!getenv("FU_SHOW"))
        return;
    capture_describe(c, why, sizeof why);
    fprintf(stderr, "%s\n", why);
}

#define ASSERT_SAME(c)                                                         \
    do {                                                                       \
        show(c);                                                               \
        ck_assert_msg(capture_same(c, why, sizeof why), "%s", why);            \
    } while (0)

/* Chains of distinct functions (test_fastunwind.c): chain0(DEPTH, C)
 * captures DEPTH + 1 frames down; with_vla(N, C) through VLA and alloca
 * frames, whose CFA is RBP-based. */
int chain0(int depth, struct capture *c);
int with_vla(int n, struct capture *c);

/* The memo's suite (test_memo.c). */
Suite *memo_suite(void);

#endif
