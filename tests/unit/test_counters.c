/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_counters.c - counters.h: counters_total is what summing
 * counters_sum over every stack id gives, with counts of several threads
 * (alive and exited), frees that undo others, and ids in the first chunk,
 * past it, and in later levels of the table. */
#define _GNU_SOURCE
#include "unit.h"
#include "track/counters.h"
#include <pthread.h>

static const uint32_t ids[] = { 1, 2, 1023, 1024, 1025, 65535, 65536,
                                70000, 1u << 20, (1u << 22) + 3 };
#define NIDS (sizeof ids / sizeof ids[0])

static void add_all(long scale)
{
    for (size_t i = 0; i < NIDS; i++) {
        counters_add_alloc(ids[i], scale * (long)(i + 1),
                           scale * 1000 * (long)(i + 3));
        counters_add_free(ids[i], scale * (long)i, scale * 100 * (long)i);
    }
    counters_add_free(ids[2], -scale, -scale * 7); /* a failed realloc's */
}

static void *thread_adds(void *arg)
{
    add_all((long)(intptr_t)arg);
    return NULL;
}

static void sum_ids(struct stack_counts *out)
{
    *out = (struct stack_counts){ 0 };
    for (size_t i = 0; i < NIDS; i++) {
        struct stack_counts c;
        counters_sum(ids[i], &c);
        out->allocs += c.allocs;
        out->alloc_bytes += c.alloc_bytes;
        out->frees += c.frees;
        out->freed_bytes += c.freed_bytes;
    }
}

START_TEST(total_is_sum_over_ids)
{
    struct stack_counts before, ids_before, total, by_ids;
    counters_total(&before);
    sum_ids(&ids_before);
    add_all(1);
    pthread_t t[3];
    for (intptr_t i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, thread_adds,
                                        (void *)(i + 2)), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    counters_total(&total);
    sum_ids(&by_ids);
    ck_assert_int_eq(total.allocs - before.allocs,
                     by_ids.allocs - ids_before.allocs);
    ck_assert_int_eq(total.alloc_bytes - before.alloc_bytes,
                     by_ids.alloc_bytes - ids_before.alloc_bytes);
    ck_assert_int_eq(total.frees - before.frees,
                     by_ids.frees - ids_before.frees);
    ck_assert_int_eq(total.freed_bytes - before.freed_bytes,
                     by_ids.freed_bytes - ids_before.freed_bytes);
    /* 1 + 2 + 3 + 4 times: allocs 10 * (1 + ... + 10). */
    ck_assert_int_eq(total.allocs - before.allocs, 10 * 55);
    ck_assert_int_eq(total.frees - before.frees, 10 * (45 - 1));
}
END_TEST

Suite *counters_suite(void)
{
    Suite *s = suite_create("counters");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, total_is_sum_over_ids);
    suite_add_tcase(s, tc);
    return s;
}
