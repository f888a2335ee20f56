/* SPDX-License-Identifier: GPL-3.0-or-later
 * manythreads.c - more threads alive at once than libmtrace has buffer ids
 * for (2047): the later ones log unbuffered.  Every thread allocates a
 * block, then frees the block of the thread before it (buffered and
 * unbuffered threads free each other's), then allocates again into the
 * addresses just released.  Known leaks: 3000 (one, from main).
 * Usage: manythreads [THREADS] */
#include <limits.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include "util.h"

static int nthreads = 2200;
static void **blocks;
static pthread_barrier_t all_allocated, all_freed;

static void *worker(void *arg)
{
    long id = (long)arg;

    blocks[id] = malloc(16 + (size_t)(id % 7) * 16);
    escape(blocks[id]);
    pthread_barrier_wait(&all_allocated);
    free(blocks[(id + nthreads - 1) % nthreads]);
    pthread_barrier_wait(&all_freed);
    free(used(malloc(16 + (size_t)(id % 5) * 16)));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        nthreads = atoi(argv[1]);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    blocks = calloc((size_t)nthreads, sizeof *blocks);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(
        &attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
    pthread_barrier_init(&all_allocated, NULL, (unsigned)nthreads);
    pthread_barrier_init(&all_freed, NULL, (unsigned)nthreads);
    mtrace();
    int started = 0;
    for (long i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], &attr, worker, (void *)i) == 0)
            started++;
    if (started != nthreads) {
        say("only %d threads\n", started);
        return 1; /* the barriers would never open */
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    escape(malloc(3000));
    say("done %d\n", nthreads);
    return 0;
}
