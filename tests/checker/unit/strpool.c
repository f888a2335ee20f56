/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: reference-counted string interning (strpool.c).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "replay/strpool.h"

#include <stdio.h>

START_TEST(refcounts)
{
    struct strpool p;
    pool_init(&p);
    uint32_t a = pool_ref(&p, S("./t:[0x11b1]"));
    uint32_t b = pool_ref(&p, S("./t:[0x11b1]"));
    uint32_t c = pool_ref(&p, (struct slice){ "x\0y", 3 });
    ck_assert_uint_eq(a, b);
    ck_assert_uint_ne(a, c);
    ck_assert_uint_eq(pool_live(&p), 2);
    struct slice got = pool_get(&p, c);
    ck_assert(got.n == 3 && memcmp(got.p, "x\0y", 3) == 0);
    pool_unref(&p, a);
    ck_assert_uint_eq(pool_live(&p), 2);
    pool_unref(&p, b);
    ck_assert_uint_eq(pool_live(&p), 1);
    /* A freed id comes back for a new string, and the old one is gone. */
    uint32_t d = pool_ref(&p, S("other"));
    ck_assert_uint_eq(d, a);
    got = pool_get(&p, d);
    ck_assert(got.n == 5 && memcmp(got.p, "other", 5) == 0);
    pool_destroy(&p);
}
END_TEST

START_TEST(many_strings)
{
    struct strpool p;
    static uint32_t ids[5000];
    char buf[32];
    pool_init(&p);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 5000; i++) {
            sprintf(buf, "where-%d", i);
            ids[i] = pool_ref(&p, S(buf));
        }
        for (int i = 0; i < 5000; i++) {
            sprintf(buf, "where-%d", i);
            struct slice got = pool_get(&p, ids[i]);
            UT_CHECK(got.n == strlen(buf) && memcmp(got.p, buf, got.n) == 0,
                     "round %d, string %d", round, i);
        }
        for (int i = 0; i < 5000; i++)
            pool_unref(&p, ids[i]);
        ck_assert_uint_eq(pool_live(&p), 0);
    }
    pool_destroy(&p);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("strpool");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, refcounts);
    tcase_add_test(tc, many_strings);
    suite_add_tcase(s, tc);
    return s;
}
