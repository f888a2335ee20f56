/* SPDX-License-Identifier: GPL-3.0-or-later
 * bigheap.c - 4 threads each keep 100000 blocks alive at once (the live
 * block table must grow while other threads use it), then each frees the
 * next thread's blocks, reallocating every third one first.
 * Known leaks: 2222, 3333 (allocated by main at the end). */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include "util.h"

#define NTHREADS 4
#define NBLOCKS 100000

static void *blocks[NTHREADS][NBLOCKS];
static pthread_barrier_t barrier;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    void **theirs = blocks[(id + 1) % NTHREADS];

    for (int i = 0; i < NBLOCKS; i++)
        blocks[id][i] = malloc(8 + (i + id) % 120);
    pthread_barrier_wait(&barrier);
    for (int i = 0; i < NBLOCKS; i++) {
        if (i % 3 == 0)
            theirs[i] = realloc(theirs[i], 200);
        free(theirs[i]);
    }
    return NULL;
}

int main(void)
{
    pthread_t th[NTHREADS];

    pthread_barrier_init(&barrier, NULL, NTHREADS);
    mtrace();
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    escape(malloc(2222));
    escape(malloc(3333));
    say("done\n");
    return 0;
}
