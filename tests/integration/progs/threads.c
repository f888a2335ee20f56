/* SPDX-License-Identifier: GPL-3.0-or-later
 * threads.c - 4 threads hand batches of blocks to each other; the receiver
 * reallocs some and frees all of them, so addresses freed by one thread are
 * immediately reused by another.  Known leaks: 1000, 1001, 1002, 1003 (one
 * per thread).  Usage: threads [ROUNDS] */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define NTHREADS 4
#define BATCH 64

struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    void *blocks[BATCH];
    int full;
};

static struct mailbox box[NTHREADS];
static int rounds = 500;
static void *leaked[NTHREADS];

static void fill_batch(void **blocks, unsigned *seed)
{
    for (int i = 0; i < BATCH; i++) {
        size_t n = 16 + rand_r(seed) % 200;

        blocks[i] = malloc(n);
        memset(blocks[i], i, n);
    }
}

static void post(struct mailbox *m, void **blocks)
{
    pthread_mutex_lock(&m->lock);
    while (m->full)
        pthread_cond_wait(&m->cond, &m->lock);
    memcpy(m->blocks, blocks, sizeof m->blocks);
    m->full = 1;
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->lock);
}

static void take(struct mailbox *m, void **blocks)
{
    pthread_mutex_lock(&m->lock);
    while (!m->full)
        pthread_cond_wait(&m->cond, &m->lock);
    memcpy(blocks, m->blocks, sizeof m->blocks);
    m->full = 0;
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->lock);
}

/* Free blocks another thread allocated; every fourth one is realloc'd first. */
static void consume(void **blocks, unsigned *seed)
{
    for (int i = 0; i < BATCH; i++) {
        if (i % 4 == 0) {
            void *p = realloc(blocks[i], 8 + rand_r(seed) % 600);

            if (p)
                blocks[i] = p;
        }
        free(blocks[i]);
    }
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    unsigned seed = id + 1;
    void *mine[BATCH], *theirs[BATCH];

    for (int r = 0; r < rounds; r++) {
        fill_batch(mine, &seed);
        post(&box[(id + 1) % NTHREADS], mine);
        take(&box[id], theirs);
        consume(theirs, &seed);
    }
    leaked[id] = malloc(1000 + id);
    escape(leaked[id]);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];

    if (argc > 1)
        rounds = atoi(argv[1]);
    for (int i = 0; i < NTHREADS; i++) {
        pthread_mutex_init(&box[i].lock, NULL);
        pthread_cond_init(&box[i].cond, NULL);
    }
    mtrace();
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    say("done\n");
    return 0;
}
