/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threads4.c - four threads, each keeps 100 blocks of (thread + 1) * 16
 * bytes and frees 50 of another thread's earlier blocks; then a report.
 * Expected live: 4 * 100 blocks minus 4 * 50. */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>

#define PER_THREAD 100
static void *volatile blocks[4][PER_THREAD];
static pthread_barrier_t all_allocated;

void fill(int t); /* global: reports name it as it is (no clones) */

__attribute__((noinline)) void fill(int t)
{
    for (int i = 0; i < PER_THREAD; i++)
        blocks[t][i] = malloc((size_t)(t + 1) * 16);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    fill(t);
    pthread_barrier_wait(&all_allocated);
    for (int i = 0; i < PER_THREAD / 2; i++)
        free(blocks[(t + 1) % 4][i]); /* cross-thread frees */
    return NULL;
}

int main(void)
{
    mtrace();
    pthread_t tid[4];
    pthread_barrier_init(&all_allocated, NULL, 4);
    for (long t = 0; t < 4; t++)
        pthread_create(&tid[t], NULL, worker, (void *)t);
    for (int t = 0; t < 4; t++)
        pthread_join(tid[t], NULL);
    mtrace();
    return 0;
}
