/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threads.c - 4 threads that allocate blocks and hand them to each other
 * to free.  glibc's tracer logs a free after the real free, so another
 * thread can receive the same address and log its "+" first: the log is
 * full of "duplicate" and "never alloc'd" lines, which the checker must
 * reproduce exactly.  Usage: threads [ROUNDS] (default 20000).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { NTHREADS = 4, SLOTS = 8 };

static _Atomic(void *) mailbox[NTHREADS][SLOTS];
static long rounds = 20000;
static pthread_barrier_t start_line;

static void *worker(void *arg)
{
    long self = (long)arg;
    unsigned seed = (unsigned)self * 7919u + 1;

    pthread_barrier_wait(&start_line); /* maximise overlap */
    for (long i = 0; i < rounds; i++) {
        seed = seed * 1103515245u + 12345u;
        long peer = (self + 1 + (seed >> 8) % (NTHREADS - 1)) % NTHREADS;
        /* One size class: a block freed by one thread is the next one
		 * another thread gets (compare.sh also turns tcache off). */
        void *p = malloc(24 + (seed >> 20) % 8);
        void *old = atomic_exchange(&mailbox[peer][i % SLOTS], p);
        free(old);
        if (i % 97 == 0) {
            void *q = malloc(8);
            q = realloc(q, 32 + i % 50);
            free(q);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[NTHREADS];

    if (argc > 1)
        rounds = atol(argv[1]);
    pthread_barrier_init(&start_line, NULL, NTHREADS);
    mtrace();
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    /* Leave a few mailboxes full: leaks with threads' callers. */
    for (int i = 0; i < NTHREADS; i++)
        for (int j = 0; j < SLOTS; j += 2)
            free(atomic_exchange(&mailbox[i][j], NULL));
    return 0;
}
