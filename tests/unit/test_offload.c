/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_offload.c - offload.h: the ring's consumer applies every record the
 * producer put in, whole and in order, across many turns of the ring; a
 * drain returns once all of them are applied; another thread's event
 * stops the ring while the producer pushes, and no record pushed is lost
 * nor any pushed after the stop.  Skipped on one CPU (no consumer). */
#define _GNU_SOURCE
#include "unit.h"
#include "track/offload.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define EVENTS 300000

/* What the consumer saw: one entry per record, in its order. */
static uint64_t *seen;
static _Atomic long nseen;
static _Atomic int bad;

static uint64_t expect_word(long i, int k)
{
    return (uint64_t)i * 1000003u + (uint64_t)k;
}

static void record(const uint64_t *r)
{
    long i = atomic_load_explicit(&nseen, memory_order_relaxed);
    if (i >= 2 * EVENTS) {
        atomic_store(&bad, 1);
        return;
    }
    unsigned op = OFFLOAD_RECORD_OP(r[0]);
    if (op == OFFLOAD_ALLOC) {
        long ev = (long)r[1];
        int n = OFFLOAD_RECORD_FRAMES(r[0]);
        if (n != 1 + (int)(ev % 9) || r[2] != (uint64_t)ev * 3)
            atomic_store(&bad, 1);
        for (int k = 0; k < n; k++)
            if (r[3 + k] != expect_word(ev, k))
                atomic_store(&bad, 1);
        seen[i] = (uint64_t)ev << 2 | 1;
    } else {
        seen[i] = r[1] << 2 | 2;
    }
    atomic_store_explicit(&nseen, i + 1, memory_order_release);
}

/* The walk of event EV: 1 + EV % 9 words, each telling where it belongs. */
static int fake_walk(void **frames, int max, const void *arg, void **known)
{
    (void)known;
    long ev = (long)(intptr_t)arg;
    int n = 1 + (int)(ev % 9);
    ck_assert_int_le(n, max);
    for (int k = 0; k < n; k++)
        frames[k] = (void *)(uintptr_t)expect_word(ev, k);
    return n;
}

/* Event EV of the producer: an allocation, every third one a free too. */
static int push(long ev)
{
    if (!offload_alloc((uintptr_t)ev, (size_t)ev * 3, fake_walk,
                       (void *)(intptr_t)ev, 16))
        return 0;
    if (ev % 3 == 0 && !offload_free((uintptr_t)ev))
        return -1; /* the alloc went in, the free did not */
    return 1;
}

static int start(void)
{
    seen = calloc(2 * EVENTS, sizeof *seen);
    ck_assert_ptr_nonnull(seen);
    offload_start(record);
    if (!atomic_load(&offload_running))
        fprintf(stderr, "offload: one CPU, no consumer: skipped\n");
    return atomic_load(&offload_running);
}

/* The records of events 0..N-1 as push() made them, in order. */
static void check_order(long n, long frees_of_last)
{
    long j = 0;
    for (long ev = 0; ev < n; ev++) {
        ck_assert_uint_eq(seen[j++], (uint64_t)ev << 2 | 1);
        if (ev % 3 == 0 && (ev < n - 1 || frees_of_last))
            ck_assert_uint_eq(seen[j++], (uint64_t)ev << 2 | 2);
    }
    ck_assert_int_eq(atomic_load(&nseen), j);
    ck_assert_int_eq(atomic_load(&bad), 0);
}

START_TEST(applied_whole_in_order)
{
    if (!start())
        return;
    for (long ev = 0; ev < EVENTS; ev++) {
        ck_assert_int_eq(push(ev), 1);
        if (ev % 50000 == 0) { /* a drain in the middle: all applied */
            offload_drain();
            ck_assert_int_eq(atomic_load(&nseen),
                             ev + 1 + ev / 3 + 1);
        }
    }
    offload_drain();
    check_order(EVENTS, 1);
}
END_TEST

static _Atomic int stop_now;

static void *stopper(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_now))
        ;
    /* Not the ring's thread: its event turns the ring off first. */
    ck_assert_int_eq(offload_here(), 0);
    ck_assert_int_eq(atomic_load(&offload_running), 0);
    return NULL;
}

START_TEST(another_thread_stops_it)
{
    if (!start())
        return;
    ck_assert_int_eq(offload_here(), 1);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, stopper, NULL), 0);
    long ev = 0, frees_of_last = 1;
    for (;; ev++) {
        if (ev == EVENTS / 2)
            atomic_store(&stop_now, 1);
        while (ev >= EVENTS && atomic_load(&offload_running))
            sched_yield(); /* a busy machine: the stopper is late */
        int r = push(ev);
        if (r == 0)
            break;
        if (r < 0) {
            frees_of_last = 0;
            ev++;
            break;
        }
    }
    pthread_join(t, NULL);
    /* Nothing goes in once it is off; what went in was applied. */
    ck_assert_int_eq(push(ev + 1), 0);
    ck_assert_int_eq(offload_here(), 0);
    check_order(ev, frees_of_last);
}
END_TEST

/* ---- reallocs and known stacks ---------------------------------------- */

struct raw {
    unsigned op;
    uint64_t ptr, size, third;
};
static struct raw raws[16];
static _Atomic int nraws;

static void record_raw(const uint64_t *r)
{
    int i = atomic_load_explicit(&nraws, memory_order_relaxed);
    if (i < 16) {
        unsigned op = OFFLOAD_RECORD_OP(r[0]);
        raws[i] = (struct raw){ op, r[1], op == OFFLOAD_FREE ? 0 : r[2],
                                op == OFFLOAD_FREE ? 0 : r[3] };
    }
    atomic_store_explicit(&nraws, i + 1, memory_order_release);
}

/* One frame, 0x5000 + the address; or, for address 0x7000, a stack the
 * memo knows (0xdead). */
static int walk_one(void **frames, int max, const void *arg, void **known)
{
    (void)max;
    uintptr_t at = (uintptr_t)arg;
    if (at == 0x7000) {
        *known = (void *)0xdead;
        return 0;
    }
    frames[0] = (void *)(0x5000 + at);
    return 1;
}

static void expect_raw(int i, unsigned op, uint64_t ptr, uint64_t size,
                       uint64_t third)
{
    ck_assert_uint_eq(raws[i].op, op);
    ck_assert_uint_eq(raws[i].ptr, ptr);
    ck_assert_uint_eq(raws[i].size, size);
    ck_assert_uint_eq(raws[i].third, third);
}

START_TEST(reallocs_and_known_stacks)
{
    offload_start(record_raw);
    if (!atomic_load(&offload_running))
        return;
    size_t old = 0;
    ck_assert_int_eq(offload_alloc(0x1000, 77, walk_one, (void *)0x1000, 4), 1);
    /* Its own record gives the size, applied or not. */
    ck_assert_int_eq(offload_realloc_begin(0x1000, &old), OFFLOAD_SIZE_KNOWN);
    ck_assert_uint_eq(old, 77);
    offload_realloc_end(0x1000, 1, 0x2000, 99, walk_one, (void *)0x2000, 4);
    /* Never in the ring: the table tells. */
    ck_assert_int_eq(offload_realloc_begin(0x3000, &old), OFFLOAD_SIZE_IN_TABLE);
    offload_realloc_end(0x3000, 0, 0x4000, 5, walk_one, (void *)0x4000, 4);
    /* Freed: no size of its own any more; once settled, the table's. */
    ck_assert_int_eq(offload_free(0x2000), 1);
    ck_assert_int_eq(offload_realloc_begin(0x2000, &old), OFFLOAD_SIZE_IN_TABLE);
    ck_assert_int_ge(atomic_load(&nraws), 5); /* the free was applied */
    offload_realloc_end(0x2000, 0, 0, 0, walk_one, NULL, 4); /* it failed */
    ck_assert_int_eq(offload_alloc(0x7000, 3, walk_one, (void *)0x7000, 4), 1);
    offload_drain();
    ck_assert_int_eq(atomic_load(&nraws), 6);
    expect_raw(0, OFFLOAD_ALLOC, 0x1000, 77, 0x6000);
    expect_raw(1, OFFLOAD_FREE, 0x1000, 0, 0);
    expect_raw(2, OFFLOAD_ALLOC, 0x2000, 99, 0x7000);
    expect_raw(3, OFFLOAD_ALLOC, 0x4000, 5, 0x9000);
    expect_raw(4, OFFLOAD_FREE, 0x2000, 0, 0);
    expect_raw(5, OFFLOAD_KNOWN, 0x7000, 3, 0xdead);
}
END_TEST

Suite *offload_suite(void)
{
    Suite *s = suite_create("offload");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, applied_whole_in_order);
    tcase_add_test(tc, another_thread_stops_it);
    tcase_add_test(tc, reallocs_and_known_stacks);
    suite_add_tcase(s, tc);
    return s;
}
