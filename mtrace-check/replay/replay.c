/* SPDX-License-Identifier: GPL-3.0-or-later */
/* replay.c - one thread, or several joined by a ring of segments (see
 * replay.h).
 *
 * Each thread loops: take the feeder, read the next segment into its
 * slot of the ring, let the feeder go, replay the segment on its own,
 * mark it done, then apply every done segment that is next in log order
 * (one thread applies at a time; the others go back to reading).  A
 * thread waits only when the ring is full, that is when the segment to
 * apply next is still being replayed elsewhere.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "replay/replay.h"
#include "read/feeder.h"
#include "replay/speculate.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    DEFAULT_SEGMENT = 2 << 20,
    MAX_THREADS = 8,
    SLOTS_PER_THREAD = 4, /* slack for a thread that loses its core */
};

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct slot {
    struct spec_segment spec;
    enum slot_state state;
    int status; /* feeder_next's: 1 a segment, 0 the end, -1 an error */
};

struct ring {
    struct feeder feeder;
    pthread_mutex_t feed_lock; /* the feeder and next_read */
    uint64_t next_read;
    pthread_mutex_t lock; /* slot states, next_apply, applying */
    pthread_cond_t freed;
    struct slot *slots;
    size_t nslots;
    uint64_t next_apply;
    int applying;
    int failed;
    struct engine *e;
    const char *name;
    struct replay_stats stats;
};

/* Take the next segment into its slot; returns the slot. */
static struct slot *read_next(struct ring *r)
{
    pthread_mutex_lock(&r->feed_lock);
    struct slot *s = &r->slots[r->next_read % r->nslots];
    pthread_mutex_lock(&r->lock);
    while (s->state != SLOT_FREE)
        pthread_cond_wait(&r->freed, &r->lock);
    s->state = SLOT_BUSY;
    pthread_mutex_unlock(&r->lock);
    s->status = feeder_next(&r->feeder, &s->spec.seg);
    r->next_read++;
    pthread_mutex_unlock(&r->feed_lock);
    return s;
}

/* Apply the done segments that come next, unless a thread does already.
 * Called with r->lock held. */
static void apply_ready(struct ring *r)
{
    while (!r->applying) {
        struct slot *s = &r->slots[r->next_apply % r->nslots];
        if (s->state != SLOT_DONE)
            return;
        r->applying = 1;
        pthread_mutex_unlock(&r->lock);
        if (s->status > 0) {
            r->stats.segments++;
            if (!spec_apply(&s->spec, r->e, r->name))
                r->stats.replayed++;
            feeder_release(&r->feeder, &s->spec.seg);
        } else if (s->status < 0) {
            r->failed = 1;
        }
        pthread_mutex_lock(&r->lock);
        s->state = SLOT_FREE;
        r->next_apply++;
        r->applying = 0;
        pthread_cond_broadcast(&r->freed);
    }
}

/* The helpers' turn (replay_share_cores); the calling thread never waits. */
static void (*wait_turn)(void);
static __thread int is_helper;

static void *worker(void *arg)
{
    struct ring *r = arg;
    int more = 1;

    while (more) {
        if (is_helper && wait_turn)
            wait_turn();
        struct slot *s = read_next(r);
        more = s->status > 0;
        if (more) {
            feeder_prefault(&s->spec.seg);
            spec_run(&s->spec);
        }
        pthread_mutex_lock(&r->lock);
        s->state = SLOT_DONE;
        apply_ready(r);
        pthread_mutex_unlock(&r->lock);
    }
    return NULL;
}

static void *helper(void *arg)
{
    is_helper = 1;
    return worker(arg);
}

void replay_share_cores(void (*wait)(void))
{
    wait_turn = wait;
}

static int run_parallel(struct ring *r, int threads)
{
    pthread_t tid[MAX_THREADS];
    int started = 0;

    pthread_mutex_init(&r->feed_lock, NULL);
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->freed, NULL);
    r->nslots = (size_t)threads * SLOTS_PER_THREAD;
    r->slots = xcalloc(r->nslots, sizeof *r->slots);
    for (size_t i = 0; i < r->nslots; i++)
        spec_init(&r->slots[i].spec);
    while (started < threads - 1 &&
           pthread_create(&tid[started], NULL, helper, r) == 0)
        started++;
    worker(r);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    for (size_t i = 0; i < r->nslots; i++)
        spec_destroy(&r->slots[i].spec);
    free(r->slots);
    pthread_mutex_destroy(&r->feed_lock);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->freed);
    return r->failed ? -1 : 0;
}

static int run_serial(struct ring *r)
{
    struct segment seg = { 0 };
    int got;

    while ((got = feeder_next(&r->feeder, &seg)) > 0) {
        r->stats.segments++;
        feeder_prefault(&seg);
        replay_segment(r->e, &seg, r->name);
        feeder_release(&r->feeder, &seg);
    }
    segment_free(&seg);
    return got;
}

int replay_log(struct source *src, struct engine *e, const char *name,
               int threads, size_t segment, struct replay_stats *stats)
{
    struct ring r;

    memset(&r, 0, sizeof r);
    r.e = e;
    r.name = name;
    feeder_init(&r.feeder, src, segment ? segment : DEFAULT_SEGMENT);
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    int got = threads > 0 ? run_parallel(&r, threads) : run_serial(&r);
    feeder_destroy(&r.feeder);
    if (stats)
        *stats = r.stats;
    return got < 0 ? -1 : 0;
}

int replay_threads(void)
{
    const char *env = getenv("MTRACE_CHECK_THREADS");
    if (env && *env)
        return atoi(env) < 0 ? 0 : atoi(env);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
}

size_t replay_segment_size(void)
{
    const char *env = getenv("MTRACE_CHECK_SEGMENT");
    return env && *env ? (size_t)strtoull(env, NULL, 10) : 0;
}
