/* SPDX-License-Identifier: GPL-3.0-or-later
 * handoff.c - producer/consumer pairs hand single blocks over through a
 * one-slot mailbox: every block is freed by a thread other than the one
 * that allocated it, a moment later, and the consumer's frees overflow
 * its tcache into the producer's arena, where the producer gets the same
 * addresses back.  Each free depends on another thread's allocation line
 * and most allocations on another thread's free line: per-thread log
 * buffers must still give a causally ordered log.
 * Known leaks: 500, 501 (one per pair).  Usage: handoff [ROUNDS] */
#include <mcheck.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "util.h"

#define NPAIRS 2

static _Atomic(void *) slot[NPAIRS];
static long rounds = 100000;

static void *producer(void *arg)
{
    long pair = (long)arg;

    for (long i = 0; i < rounds; i++) {
        void *p = malloc(24 + (size_t)(i % 5) * 16);
        void *expected = NULL;

        escape(p);
        while (!atomic_compare_exchange_weak(&slot[pair], &expected, p)) {
            expected = NULL;
            sched_yield();
        }
    }
    escape(malloc(500 + pair));
    return NULL;
}

static void *consumer(void *arg)
{
    long pair = (long)arg;

    for (long i = 0; i < rounds; i++) {
        void *p;

        while ((p = atomic_exchange(&slot[pair], NULL)) == NULL)
            sched_yield();
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
