/* SPDX-License-Identifier: GPL-3.0-or-later
 * handoff.c - producer/consumer pairs hand single blocks over through a
 * one-slot mailbox: every block is freed by a thread other than the one
 * that allocated it, a moment later, and the consumer's frees overflow
 * its tcache into the producer's arena, where the producer gets the same
 * addresses back.  Each free depends on another thread's allocation line
 * and most allocations on another thread's free line: per-thread log
 * buffers must still give a causally ordered log.
 * The mailbox blocks (a mutex and two condition variables): a thread that
 * waits sleeps, so the program takes the same time on a loaded machine as
 * on an idle one (spinning on sched_yield took 20-100 s beside two busy
 * loops).
 * Known leaks: 500, 501 (one per pair).  Usage: handoff [ROUNDS] */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include "util.h"

#define NPAIRS 2

struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t filled, emptied;
    void *slot;
};

static struct mailbox box[NPAIRS];
static long rounds = 30000;

static void put(struct mailbox *m, void *p)
{
    pthread_mutex_lock(&m->lock);
    while (m->slot != NULL)
        pthread_cond_wait(&m->emptied, &m->lock);
    m->slot = p;
    pthread_cond_signal(&m->filled);
    pthread_mutex_unlock(&m->lock);
}

static void *take(struct mailbox *m)
{
    void *p;

    pthread_mutex_lock(&m->lock);
    while ((p = m->slot) == NULL)
        pthread_cond_wait(&m->filled, &m->lock);
    m->slot = NULL;
    pthread_cond_signal(&m->emptied);
    pthread_mutex_unlock(&m->lock);
    return p;
}

static void *producer(void *arg)
{
    long pair = (long)arg;

    for (long i = 0; i < rounds; i++) {
        void *p = malloc(24 + (size_t)(i % 5) * 16);

        escape(p);
        put(&box[pair], p);
    }
    escape(malloc(500 + pair));
    return NULL;
}

static void *consumer(void *arg)
{
    long pair = (long)arg;

    for (long i = 0; i < rounds; i++) {
        void *p = take(&box[pair]);

        if (i % 7 == 0) /* sometimes a realloc of the other's block */
            p = realloc(p, 100);
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[2 * NPAIRS];

    if (argc > 1)
        rounds = atol(argv[1]);
    for (int i = 0; i < NPAIRS; i++) {
        pthread_mutex_init(&box[i].lock, NULL);
        pthread_cond_init(&box[i].filled, NULL);
        pthread_cond_init(&box[i].emptied, NULL);
    }
    mtrace();
    for (long i = 0; i < NPAIRS; i++) {
        pthread_create(&th[2 * i], NULL, producer, (void *)i);
        pthread_create(&th[2 * i + 1], NULL, consumer, (void *)i);
    }
    for (int i = 0; i < 2 * NPAIRS; i++)
        pthread_join(th[i], NULL);
    say("done\n");
    return 0;
}
