/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threadlog.c - see threadlog.h. */
#include "log/threadlog.h"
#include "../include/mtrace-format.h"
#include "log/threads.h"
#include "log/rss.h"
#include "log/timestamp.h"
#include <string.h>

static int (*sink)(const char *, size_t, int);
static atomic_int direct;
static uint64_t (*clock_now)(void);
static _Atomic uint64_t last_stamp; /* time of the last "#t" written */
static _Atomic uint64_t last_rss;   /* ... of the last one with "rss-" */

void threadlog_set_sink(int (*fn)(const char *, size_t, int))
{
    sink = fn;
}

void threadlog_set_clock(uint64_t (*now)(void))
{
    clock_now = now;
}

/* After a hand-over: a "#t" line, when the last one is MTF_TIME_STEP_NS
 * old (or FORCE).  One clock read per hand-over: the events themselves
 * never read the clock.  WAIT as for the sink: a hand-over that would not
 * wait for the log does not wait to stamp either.  Two threads may both
 * find it due and both write one; readers keep the largest value. */
/* The "#t" line of NOW into LINE, with the resident memory (rss.h) when
 * FORCE or the last sample is MTF_RSS_STEP_NS old. */
static size_t time_line(char *line, uint64_t now, int force)
{
    size_t n = timestamp_line(line, now);
    uint64_t last = atomic_load_explicit(&last_rss, memory_order_relaxed);
    if (!force && now >= last && now - last < MTF_RSS_STEP_NS)
        return n;
    atomic_store_explicit(&last_rss, now, memory_order_relaxed);
    size_t k = rss_fields(line + n - 1);
    line[n - 1 + k] = '\n';
    return n + k;
}

__attribute__((noinline)) static void stamp(int force, int wait)
{
    char line[TIMESTAMP_LINE_MAX + RSS_FIELDS_MAX];
    if (clock_now == NULL || sink == NULL)
        return;
    uint64_t now = clock_now();
    uint64_t last = atomic_load_explicit(&last_stamp, memory_order_relaxed);
    if (!force && (now < last || now - last < MTF_TIME_STEP_NS))
        return;
    if (sink(line, time_line(line, now, force), wait))
        atomic_store_explicit(&last_stamp, now, memory_order_relaxed);
}

static unsigned gen_of(const struct threadlog *l)
{
    return atomic_load_explicit(&l->gen, memory_order_acquire);
}

static uint32_t make_tag(unsigned id, unsigned gen)
{
    return (uint32_t)(id << TAG_GEN_BITS | (gen % TAG_GEN_MOD));
}

uint32_t threadlog_tag(void)
{
    struct thread_record *r = thread_record();
    if (r == NULL || r->id == 0)
        return 0;
    return make_tag(r->id,
                    atomic_load_explicit(&r->log.gen, memory_order_relaxed));
}

/* The thread id a tag names (make_tag's inverse). */
static unsigned id_of(uint32_t tag)
{
    return tag >> TAG_GEN_BITS;
}

static struct thread_record *owner_of(uint32_t tag)
{
    return thread_record_by_id(id_of(tag));
}

int threadlog_pending(uint32_t tag)
{
    struct thread_record *r = owner_of(tag);
    return r && gen_of(&r->log) % TAG_GEN_MOD == tag % TAG_GEN_MOD;
}

/* Lock held.  The new generation is published after the lines reached
 * the sink: whoever sees it may rely on them being there.  WAIT 0: only if
 * the sink is free now. */
static void hand_over_locked(struct threadlog *l, int wait)
{
    if (l->len == 0)
        return;
    if (sink && !sink(l->buf, l->len, wait))
        return;
    l->len = 0;
    atomic_store_explicit(
        &l->gen, atomic_load_explicit(&l->gen, memory_order_relaxed) + 1,
        memory_order_release);
    stamp(0, wait);
}

/* Out of line: the common case below then saves no registers. */
static __attribute__((noinline)) void settle_other(struct thread_record *me,
                                                   uint32_t tag)
{
    struct thread_record *r = owner_of(tag);
    if (r == NULL || r == me)
        return;
    if (gen_of(&r->log) % TAG_GEN_MOD != tag % TAG_GEN_MOD)
        return;
    spin_lock(&r->log.lock);
    if (gen_of(&r->log) % TAG_GEN_MOD == tag % TAG_GEN_MOD)
        hand_over_locked(&r->log, 1);
    spin_unlock(&r->log.lock);
}

void threadlog_settle(uint32_t tag)
{
    /* No line, or one of ours (almost every call): our own lines are in
     * order already, and the owner need not be looked up. */
    struct thread_record *me = mt_thread_mine;
    if (tag == 0 || (me && id_of(tag) == me->id))
        return;
    settle_other(me, tag);
}

char *threadlog_reserve(void)
{
    struct thread_record *r = thread_record();
    if (r == NULL || r->id == 0)
        return NULL;
    r->log.taken = spin_lock_hot(&r->log.lock);
    return r->log.buf + r->log.len;
}

void threadlog_commit(size_t n, uint32_t tag)
{
    struct thread_record *r = mt_thread_mine;
    struct threadlog *l = &r->log;
    l->len += n;
    /* Read under the lock: threadlog_set_direct() then hands over every
     * buffer, so a line is either handed over there or here. */
    if (l->len > THREADLOG_SIZE - THREADLOG_LINE_MAX ||
        make_tag(r->id, atomic_load_explicit(&l->gen, memory_order_relaxed)) !=
            tag ||
        atomic_load_explicit(&direct, memory_order_relaxed))
        hand_over_locked(l, 1);
    else if (l->len >= THREADLOG_SOON)
        hand_over_locked(l, 0);
    spin_unlock_hot(&l->lock, l->taken);
}

void threadlog_append(const char *line, size_t n, uint32_t tag)
{
    char *room = threadlog_reserve();
    if (room == NULL) {
        if (sink)
            sink(line, n, 1);
        return;
    }
    memcpy(room, line, n);
    threadlog_commit(n, tag);
}

void threadlog_hand_over(struct thread_record *r)
{
    spin_lock(&r->log.lock);
    hand_over_locked(&r->log, 1);
    spin_unlock(&r->log.lock);
}

void threadlog_flush_mine(void)
{
    struct thread_record *r = mt_thread_mine;
    if (r)
        threadlog_hand_over(r);
}

void threadlog_time_tick(void)
{
    stamp(0, 0);
}

void threadlog_flush_all(void)
{
    uint64_t before = atomic_load_explicit(&last_stamp, memory_order_relaxed);
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        threadlog_hand_over(r);
    /* Reports, fork, exec and exit: the time of this point. */
    if (atomic_load_explicit(&last_stamp, memory_order_relaxed) == before)
        stamp(1, 1);
}

void threadlog_flush_all_nowait(void)
{
    for (struct thread_record *r = thread_records(); r; r = r->next_all)
        if (spin_trylock(&r->log.lock)) {
            hand_over_locked(&r->log, 0);
            spin_unlock(&r->log.lock);
        }
}

void threadlog_set_direct(void)
{
    atomic_store(&direct, 1);
    threadlog_flush_all();
}

void threadlog_reset_after_fork(void)
{
    for (struct thread_record *r = thread_records(); r; r = r->next_all) {
        spin_reset(&r->log.lock);
        r->log.len = 0;
    }
}

/* The records locked by threadlog_lock_all: those made later are not. */
static struct thread_record *locked_head;

/* Every buffer at once: one rank for them all (debug.h). */
void threadlog_lock_all(void)
{
    LOCK_RANK_TAKE(LOCK_RANK_BUFFER);
    locked_head = thread_records();
    for (struct thread_record *r = locked_head; r; r = r->next_all)
        spin_lock_unranked(&r->log.lock);
}

static void drain(struct threadlog *l, void (*put)(const char *, size_t))
{
    if (l->len == 0)
        return;
    put(l->buf, l->len);
    l->len = 0;
    atomic_store_explicit(
        &l->gen, atomic_load_explicit(&l->gen, memory_order_relaxed) + 1,
        memory_order_release);
}

void threadlog_drain_locked(void (*put)(const char *lines, size_t n))
{
    for (struct thread_record *r = thread_records(); r != locked_head;
         r = r->next_all)
        if (!atomic_exchange_explicit(&r->log.lock.held, 1,
                                      memory_order_acquire)) {
            drain(&r->log, put);
            spin_unlock_unranked(&r->log.lock);
        }
    for (struct thread_record *r = locked_head; r; r = r->next_all)
        drain(&r->log, put);
}

void threadlog_unlock_all(void)
{
    for (struct thread_record *r = locked_head; r; r = r->next_all)
        spin_unlock_unranked(&r->log.lock);
    locked_head = NULL;
    LOCK_RANK_DROP(LOCK_RANK_BUFFER);
}
