/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the leak table's order by radix (keysort.c) is qsort's with
 * the byte-wise comparison, for pointers as logs write them and for odd
 * keys: any length, NUL bytes, shared prefixes of 16 bytes and more.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "findings/keysort.h"

#include <stdio.h>

static int by_cmp(const void *a, const void *b)
{
    return keysort_cmp(*(struct block *const *)a, *(struct block *const *)b);
}

/* A key: a pointer ("0x" and 1 to 12 hex digits) or, one time in four,
 * bytes of a small alphabet after a shared prefix of up to 20 bytes. */
static size_t random_key(unsigned *seed, char *k)
{
    static const char odd[] = "0x0\0\xff" "a";
    if (rnd(seed) % 4) {
        return (size_t)snprintf(k, 32, "0x%llx",
                                (unsigned long long)rnd(seed) *
                                    (rnd(seed) % 2 ? 1 : 4096));
    }
    size_t n = rnd(seed) % 20;
    memcpy(k, "0x5555555555555555555", n);
    size_t len = n + rnd(seed) % 12;
    for (size_t i = n; i < len; i++)
        k[i] = odd[rnd(seed) % (sizeof odd - 1)];
    return len;
}

static void check_order(unsigned *seed, size_t n)
{
    struct alloc_table t;
    table_init(&t);
    char k[40];
    for (size_t i = 0; i < n; i++) {
        size_t len = random_key(seed, k);
        struct slice s = { k, len };
        uint64_t h = hash_bytes(k, len);
        if (!table_find(&t, s, h))
            table_insert(&t, s, h);
    }
    size_t m;
    struct block **a = table_collect(&t, &m);
    struct block **b = xmalloc((m + 1) * sizeof *b);
    memcpy(b, a, m * sizeof *b);
    qsort(a, m, sizeof *a, by_cmp);
    keysort_blocks(b, m);
    for (size_t i = 0; i < m; i++)
        UT_CHECK(a[i] == b[i], "n %zu: position %zu differs", n, i);
    free(a);
    free(b);
    table_destroy(&t);
}

START_TEST(radix_is_qsort)
{
    unsigned seed = (unsigned)ut_seed(3);
    static const size_t sizes[] = { 0, 1, 2, 3, 17, 300, 5000, 40000 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_order(&seed, sizes[i]);
}
END_TEST

START_TEST(prefix_first)
{
    struct alloc_table t;
    table_init(&t);
    static const char *const keys[] = { "0x10", "0x1", "0x1\0", "0x",
                                        "0x0123456789abcdef0",
                                        "0x0123456789abcdef", "" };
    static const size_t lens[] = { 4, 3, 4, 2, 19, 18, 0 };
    for (size_t i = 0; i < 7; i++) {
        struct slice s = { keys[i], lens[i] };
        table_insert(&t, s, hash_bytes(s.p, s.n));
    }
    size_t m;
    struct block **b = table_collect(&t, &m);
    keysort_blocks(b, m);
    static const int want[] = { 6, 3, 5, 4, 1, 2, 0 };
    for (size_t i = 0; i < m; i++) {
        struct slice s = block_key(b[i]);
        ck_assert_uint_eq(s.n, lens[want[i]]);
        ck_assert_mem_eq(s.p, keys[want[i]], s.n);
    }
    free(b);
    table_destroy(&t);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("keysort");
    TCase *t = tcase_create("keysort");
    tcase_add_test(t, radix_is_qsort);
    tcase_add_test(t, prefix_first);
    suite_add_tcase(s, t);
    return s;
}
