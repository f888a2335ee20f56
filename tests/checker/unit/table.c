/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the table of live blocks (table.c) against a plain array,
 * over random insertions and removals with colliding, long and empty keys.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "replay/table.h"

#include <stdio.h>

enum { KEYS = 3000 };

static void key_text(unsigned k, char *buf)
{
    /* Some keys longer than the inline storage, one empty key. */
    if (k == 0)
        buf[0] = '\0';
    else if (k % 7 == 0)
        sprintf(buf, "0x%0100u", k);
    else
        sprintf(buf, "0x%x", k * 16);
}

START_TEST(random_model)
{
    static int live[KEYS];
    static uint64_t size[KEYS];
    struct alloc_table t;
    unsigned seed = (unsigned)ut_seed(1);
    char key[200];

    memset(live, 0, sizeof live);
    table_init(&t);
    for (int iter = 0; iter < 200000; iter++) {
        unsigned k = rnd(&seed) % KEYS;
        key_text(k, key);
        struct slice ks = S(key);
        uint64_t h = hash_bytes(ks.p, ks.n);
        struct block *b = table_find(&t, ks, h);
        UT_CHECK((b != NULL) == live[k], "iteration %d: key %u %s", iter, k,
                 live[k] ? "lost" : "found, never inserted");
        if (b) {
            UT_CHECK(b->size == size[k], "iteration %d: key %u size", iter, k);
            struct slice got = block_key(b);
            UT_CHECK(got.n == ks.n && memcmp(got.p, ks.p, ks.n) == 0,
                     "iteration %d: key %u text", iter, k);
            table_remove(&t, b);
            live[k] = 0;
        } else {
            b = table_insert(&t, ks, h);
            b->size = size[k] = rnd(&seed);
            live[k] = 1;
        }
    }
    size_t n, want = 0;
    for (int k = 0; k < KEYS; k++)
        want += live[k];
    struct block **all = table_collect(&t, &n);
    ck_assert_uint_eq(n, want);
    ck_assert_uint_eq(t.count, want);
    free(all);
    table_destroy(&t);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("table");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, random_model);
    suite_add_tcase(s, tc);
    return s;
}
