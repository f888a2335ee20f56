/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_threadlog.c - threadlog.h: tags and pending lines, hand-over when
 * full, settling another thread's line, stale tags, direct mode, the
 * order of every thread's lines under concurrent settles, and the tagged
 * live table (livetab.h) that carries the tags. */
#include "unit.h"
#include "track/livetab.h"
#include "log/threadlog.h"
#include "log/threads.h"
#include "mtrace-format.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sink: everything handed over, in order. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static char *sunk;
static size_t sunk_len, sunk_cap, handovers;

static int sink_busy; /* declines hand-overs that need not wait */

static int test_sink(const char *lines, size_t n, int wait)
{
    if (sink_busy && !wait)
        return 0;
    pthread_mutex_lock(&sink_lock);
    if (sunk_len + n + 1 > sunk_cap) {
        sunk_cap = (sunk_len + n + 1) * 2;
        sunk = realloc(sunk, sunk_cap);
    }
    memcpy(sunk + sunk_len, lines, n);
    sunk_len += n;
    sunk[sunk_len] = '\0';
    handovers++;
    pthread_mutex_unlock(&sink_lock);
    return 1;
}

static void setup(void)
{
    threadlog_set_sink(test_sink);
}

static void append_str(const char *line)
{
    threadlog_append(line, strlen(line), threadlog_tag());
}

static int sunk_has(const char *s)
{
    pthread_mutex_lock(&sink_lock);
    int found = sunk && strstr(sunk, s) != NULL;
    pthread_mutex_unlock(&sink_lock);
    return found;
}

START_TEST(line_pending_until_handed_over)
{
    uint32_t tag = threadlog_tag();
    ck_assert_uint_ne(tag, 0);
    threadlog_append("+ 0x10 0x1\n", 11, tag);
    ck_assert(threadlog_pending(tag));
    ck_assert(!sunk_has("+ 0x10"));
    threadlog_flush_mine();
    ck_assert(!threadlog_pending(tag));
    ck_assert_str_eq(sunk, "+ 0x10 0x1\n");
    ck_assert_uint_ne(threadlog_tag(), tag); /* a new generation */
    threadlog_flush_mine();                  /* empty: nothing handed */
    ck_assert_uint_eq(handovers, 1);
}
END_TEST

/* Lines come out in order, a buffer at a time, never split. */
START_TEST(full_buffer_hands_over_in_order)
{
    char line[64], *want = malloc(1 << 20);
    size_t want_len = 0;
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(line, sizeof line, "+ 0x%x 0x%x\n", i * 16, i % 977);
        append_str(line);
        memcpy(want + want_len, line, (size_t)n);
        want_len += (size_t)n;
    }
    ck_assert_uint_gt(handovers, 20000 * 12 / THREADLOG_SIZE);
    ck_assert_uint_lt(sunk_len, want_len); /* the last part still buffered */
    ck_assert_uint_gt(sunk_len, want_len - THREADLOG_SIZE);
    ck_assert_int_eq(sunk[sunk_len - 1], '\n');
    threadlog_flush_all();
    ck_assert_uint_eq(sunk_len, want_len);
    ck_assert(memcmp(sunk, want, want_len) == 0);
    free(want);
}
END_TEST

/* A busy sink: the buffer keeps filling past THREADLOG_SOON and is handed
 * over only when it must be; free again, at the next line. */
START_TEST(busy_sink_postpones_the_hand_over)
{
    char line[64];
    int i = 0, n = 0;
    sink_busy = 1;
    for (; handovers == 0; i++) {
        n += snprintf(line, sizeof line, "+ 0x%x 0x10\n", i * 16);
        append_str(line);
    }
    ck_assert_int_gt(n, THREADLOG_SIZE - THREADLOG_LINE_MAX);
    ck_assert_uint_eq(sunk_len, (size_t)n);
    sink_busy = 0;
    for (int k = 0; k < (THREADLOG_SOON / 12) + 1; k++) {
        snprintf(line, sizeof line, "+ 0x%x 0x10\n", (i + k) * 16);
        append_str(line);
        if (handovers == 2)
            break;
    }
    ck_assert_uint_eq(handovers, 2);
    ck_assert_uint_ge(sunk_len, (size_t)n + THREADLOG_SOON);
    ck_assert_uint_lt(sunk_len, (size_t)n + THREADLOG_SOON + 64);
}
END_TEST

struct other {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int step;
    uint32_t tag;
};

static void wait_step(struct other *o, int step)
{
    pthread_mutex_lock(&o->lock);
    while (o->step < step)
        pthread_cond_wait(&o->cond, &o->lock);
    pthread_mutex_unlock(&o->lock);
}

static void set_step(struct other *o, int step)
{
    pthread_mutex_lock(&o->lock);
    o->step = step;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

/* Appends one line, then stays alive (its buffer untouched) until told. */
static void *other_thread(void *arg)
{
    struct other *o = arg;
    o->tag = threadlog_tag();
    threadlog_append("+ 0xabc0 0x8\n", 13, o->tag);
    set_step(o, 1);
    wait_step(o, 2);
    return NULL;
}

/* A thread that depends on another's pending line hands it over. */
START_TEST(settle_hands_over_the_other_thread)
{
    struct other o = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
                       0 };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, other_thread, &o), 0);
    wait_step(&o, 1);
    ck_assert(threadlog_pending(o.tag));
    ck_assert(!sunk_has("0xabc0"));
    /* Our own pending line is not handed over by settling our tag. */
    uint32_t mine = threadlog_tag();
    append_str("- 0x1 s1\n");
    threadlog_settle(mine);
    ck_assert(!sunk_has("- 0x1"));
    threadlog_settle(o.tag);
    ck_assert(sunk_has("+ 0xabc0 0x8\n"));
    ck_assert(!threadlog_pending(o.tag));
    ck_assert(!sunk_has("- 0x1"));
    threadlog_settle(0); /* no line: nothing */
    set_step(&o, 2);
    pthread_join(t, NULL);
}
END_TEST

/* A line whose tag was read before the buffer was handed over (by another
 * thread) goes out at once: the table holds the stale tag for it. */
START_TEST(stale_tag_goes_out_at_once)
{
    uint32_t tag = threadlog_tag();
    append_str("+ 0x20 0x1\n");
    threadlog_flush_all(); /* as another thread's settle would */
    ck_assert_uint_ne(threadlog_tag(), tag);
    threadlog_append("+ 0x30 0x1\n", 11, tag);
    ck_assert(sunk_has("+ 0x30 0x1\n"));
    ck_assert(!threadlog_pending(tag));
}
END_TEST

START_TEST(direct_mode_writes_each_line)
{
    append_str("+ 0x40 0x1\n");
    threadlog_set_direct();
    ck_assert(sunk_has("+ 0x40 0x1\n"));
    append_str("+ 0x50 0x1\n");
    ck_assert_str_eq(sunk, "+ 0x40 0x1\n+ 0x50 0x1\n");
}
END_TEST

/* Exiting threads hand their buffer over (the TLS destructor). */
static void *append_and_exit(void *arg)
{
    (void)arg;
    append_str("+ 0x60 0x1\n");
    return NULL;
}

START_TEST(thread_exit_hands_over)
{
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, append_and_exit, NULL), 0);
    pthread_join(t, NULL);
    ck_assert_str_eq(sunk, "+ 0x60 0x1\n");
}
END_TEST

/* Four threads append numbered lines and settle each other's latest tags
 * at random: every line arrives exactly once, each thread's in order. */
enum { WRITERS = 4, LINES = 30000 };
static _Atomic uint32_t latest[WRITERS];

static void *writer_thread(void *arg)
{
    int id = (int)(long)arg;
    uint64_t seed = 99 + (uint64_t)id;
    char line[64];
    for (int i = 0; i < LINES; i++) {
        uint32_t tag = threadlog_tag();
        int n = snprintf(line, sizeof line, "+ %d %d\n", id, i);
        threadlog_append(line, (size_t)n, tag);
        latest[id] = tag;
        if (ut_rand(&seed) % 8 == 0)
            threadlog_settle(latest[ut_rand(&seed) % WRITERS]);
    }
    return NULL;
}

START_TEST(concurrent_order_kept)
{
    pthread_t t[WRITERS];
    for (long k = 0; k < WRITERS; k++)
        ck_assert_int_eq(pthread_create(&t[k], NULL, writer_thread, (void *)k),
                         0);
    for (int k = 0; k < WRITERS; k++)
        pthread_join(t[k], NULL);
    threadlog_flush_all();
    int next[WRITERS] = { 0 };
    char *save, *line = strtok_r(sunk, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        int id, i;
        UT_CHECK(sscanf(line, "+ %d %d", &id, &i) == 2 && id >= 0 &&
                     id < WRITERS,
                 "bad line '%s'", line);
        UT_CHECK(i == next[id], "thread %d: line %d after %d", id, i, next[id]);
        next[id]++;
    }
    for (int k = 0; k < WRITERS; k++)
        ck_assert_int_eq(next[k], LINES);
}
END_TEST

/* ---- the tags in the live table ------------------------------------------ */

START_TEST(livetab_carries_tags)
{
    size_t size;
    uint32_t stack, alloc_tag;
    uint32_t t1 = threadlog_tag();
    ck_assert_uint_eq(livetab_insert_tagged(0x5000, 32, 7, t1), 0);
    append_str("+ 0x5000 0x20 s7\n");
    ck_assert_int_eq(
        livetab_remove_tagged(0x5000, &size, &stack, &alloc_tag, t1),
        LIVE_FOUND);
    ck_assert_uint_eq(size, 32);
    ck_assert_uint_eq(stack, 7);
    ck_assert_uint_eq(alloc_tag, t1);
    /* Freed: not counted, not visited, not removable again. */
    ck_assert_uint_eq(livetab_count(), 0);
    ck_assert_int_eq(
        livetab_remove_tagged(0x5000, &size, &stack, &alloc_tag, t1),
        LIVE_ABSENT);
    /* Allocated again: the free's tag comes back. */
    ck_assert_uint_eq(livetab_insert_tagged(0x5000, 16, 8, t1), t1);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x5000, &size, &stack), 1);
    ck_assert_uint_eq(size, 16);
    /* An untagged removal keeps nothing. */
    ck_assert_uint_eq(livetab_insert_tagged(0x5000, 16, 8, t1), 0);
    livetab_remove(0x5000, &size, &stack);
}
END_TEST

static size_t each_count;
static void count_visit(uintptr_t p, size_t s, uint32_t k, void *a)
{
    (void)p, (void)s, (void)k, (void)a;
    each_count++;
}

/* Freed entries whose lines are out are dropped when a shard is rebuilt;
 * those still pending survive every rebuild. */
START_TEST(livetab_drops_settled_frees_only)
{
    enum { N = 200000, PENDING = 1000 };
    size_t size;
    uint32_t stack, alloc_tag;
    uint32_t settled = threadlog_tag();
    append_str("- settled\n");
    threadlog_flush_mine();
    ck_assert(!threadlog_pending(settled));
    uint32_t pending = threadlog_tag();
    append_str("- pending\n");
    for (uintptr_t i = 0; i < PENDING; i++) {
        livetab_insert_tagged(0x100000 + 16 * i, 8, 1, pending);
        livetab_remove_tagged(0x100000 + 16 * i, &size, &stack, &alloc_tag,
                              pending);
    }
    for (uintptr_t i = 0; i < N; i++) {
        uintptr_t p = 0x7f0000000000ull + 32 * i;
        livetab_insert_tagged(p, 8, 2, settled);
        livetab_remove_tagged(p, &size, &stack, &alloc_tag, settled);
    }
    ck_assert(threadlog_pending(pending));
    /* The first settled frees were dropped by later rebuilds. */
    size_t remembered = 0;
    for (uintptr_t i = 0; i < 1000; i++)
        remembered += livetab_insert_tagged(0x7f0000000000ull + 32 * i, 8, 2,
                                            settled) != 0;
    ck_assert_uint_lt(remembered, 100);
    for (uintptr_t i = 0; i < PENDING; i++)
        UT_CHECK(livetab_insert_tagged(0x100000 + 16 * i, 8, 1, pending) ==
                     pending,
                 "pending free of block %lu forgotten", (unsigned long)i);
    ck_assert_uint_eq(livetab_count(), PENDING + 1000);
    livetab_each(count_visit, NULL);
    ck_assert_uint_eq(each_count, PENDING + 1000);
}
END_TEST

START_TEST(livetab_far_addresses)
{
    size_t size;
    uint32_t stack, alloc_tag;
    uintptr_t far = (uintptr_t)0xff00000000001000ull;
    uint32_t tag = threadlog_tag();
    ck_assert_uint_eq(livetab_insert_tagged(far, 48, 5, tag), 0);
    livetab_insert_tagged(0x9000, 8, 6, tag);
    ck_assert_uint_eq(livetab_count(), 2);
    livetab_each(count_visit, NULL);
    ck_assert_uint_eq(each_count, 2);
    /* Kept whole in the side list, so its free cannot be remembered. */
    ck_assert_int_eq(livetab_remove_tagged(far, &size, &stack, &alloc_tag, tag),
                     LIVE_FOUND_UNMARKED);
    ck_assert_uint_eq(size, 48);
    ck_assert_uint_eq(stack, 5);
    ck_assert_uint_eq(alloc_tag, tag);
    ck_assert_int_eq(livetab_remove(far, &size, &stack), 0);
    ck_assert_uint_eq(livetab_count(), 1);
}
END_TEST

/* A clock the tests move by hand ("#t" records, timestamp.h). */
static uint64_t fake_now;

static uint64_t fake_clock(void)
{
    return fake_now;
}

static size_t count_stamps(void)
{
    size_t n = 0;
    pthread_mutex_lock(&sink_lock);
    for (const char *p = sunk; p && (p = strstr(p, "#t ")); p++)
        n++;
    pthread_mutex_unlock(&sink_lock);
    return n;
}

/* A hand-over is followed by "#t NS" when the last one is a step old;
 * never between a buffer's lines, never more often than the step. */
START_TEST(time_stamp_after_hand_over_at_most_every_step)
{
    threadlog_set_clock(fake_clock);
    fake_now = 5 * (uint64_t)MTF_TIME_STEP_NS;
    append_str("+ 0x10 0x1\n");
    ck_assert_uint_eq(count_stamps(), 0); /* events never read the clock */
    threadlog_flush_mine();
    ck_assert_str_eq(sunk, "+ 0x10 0x1\n#t 5000000\n");
    fake_now += MTF_TIME_STEP_NS - 1; /* too soon for another */
    append_str("- 0x10\n");
    threadlog_flush_mine();
    ck_assert_str_eq(sunk, "+ 0x10 0x1\n#t 5000000\n- 0x10\n");
    fake_now += 1;
    append_str("+ 0x20 0x2\n");
    threadlog_flush_mine();
    ck_assert_str_eq(sunk, "+ 0x10 0x1\n#t 5000000\n- 0x10\n"
                           "+ 0x20 0x2\n#t 6000000\n");
}
END_TEST

/* Filling the buffer hands it over many times: the stamps follow the
 * clock, not the number of lines. */
START_TEST(time_stamps_follow_the_clock_not_the_lines)
{
    char line[64];
    threadlog_set_clock(fake_clock);
    fake_now = MTF_TIME_STEP_NS;
    for (int i = 0; i < 20000; i++) {
        snprintf(line, sizeof line, "+ 0x%x 0x10\n", i * 16);
        append_str(line);
    }
    ck_assert_uint_gt(handovers, 10);
    ck_assert_uint_eq(count_stamps(), 1); /* the clock stood still */
    fake_now += 2 * (uint64_t)MTF_TIME_STEP_NS;
    for (int i = 0; i < 20000; i++) {
        snprintf(line, sizeof line, "- 0x%x\n", i * 16);
        append_str(line);
    }
    ck_assert_uint_eq(count_stamps(), 2);
    /* Every stamp stands between whole lines. */
    ck_assert(strstr(sunk, "\n#t 1000000\n+ ") != NULL);
    ck_assert(strstr(sunk, "\n#t 3000000\n") != NULL);
}
END_TEST

/* Flushing every buffer (reports, fork, exit) always tells the time, once;
 * without a clock nothing is stamped. */
START_TEST(time_stamp_on_flush_all)
{
    threadlog_flush_all();
    ck_assert_uint_eq(count_stamps(), 0); /* no clock set */
    threadlog_set_clock(fake_clock);
    fake_now = 7;
    threadlog_flush_all();
    /* A flush's stamp carries the resident memory (log/rss.h). */
    const char *rss = " rss-anon=";
    ck_assert(strncmp(sunk, "#t 7 rss-anon=", 14) == 0);
    ck_assert(strstr(sunk, " rss-file=") != NULL);
    ck_assert_uint_eq(count_stamps(), 1);
    size_t first = strlen(sunk);
    append_str("+ 0x10 0x1\n");
    threadlog_flush_all(); /* the hand-over's own stamp is not due */
    ck_assert(strncmp(sunk + first, "+ 0x10 0x1\n#t 7 ", 16) == 0);
    ck_assert(strstr(sunk + first, rss) != NULL);
    ck_assert_uint_eq(count_stamps(), 2);
}
END_TEST

Suite *threadlog_suite(void)
{
    Suite *s = suite_create("threadlog");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, line_pending_until_handed_over);
    tcase_add_test(tc, full_buffer_hands_over_in_order);
    tcase_add_test(tc, busy_sink_postpones_the_hand_over);
    tcase_add_test(tc, settle_hands_over_the_other_thread);
    tcase_add_test(tc, stale_tag_goes_out_at_once);
    tcase_add_test(tc, direct_mode_writes_each_line);
    tcase_add_test(tc, thread_exit_hands_over);
    tcase_add_test(tc, concurrent_order_kept);
    tcase_add_test(tc, livetab_carries_tags);
    tcase_add_test(tc, livetab_drops_settled_frees_only);
    tcase_add_test(tc, livetab_far_addresses);
    tcase_add_test(tc, time_stamp_after_hand_over_at_most_every_step);
    tcase_add_test(tc, time_stamps_follow_the_clock_not_the_lines);
    tcase_add_test(tc, time_stamp_on_flush_all);
    suite_add_tcase(s, tc);
    return s;
}
