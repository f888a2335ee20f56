/* SPDX-License-Identifier: GPL-3.0-or-later
 * exit_busy.c - main returns while 3 threads are still allocating and
 * freeing: the log is finished at exit while events keep arriving.  The
 * program must exit normally (status 0) and the log stay consistent; which
 * blocks are still live at that moment depends on timing.  main waits
 * until each thread has done WARMUP rounds (a semaphore, not a delay), so
 * every thread is busy at the exit however slow the machine; a thread
 * that has done LIMIT rounds and still runs (a slow exit) blocks, so the
 * log's size does not grow with the time the exit takes. */
#include <mcheck.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <unistd.h>
#include "util.h"

#define WARMUP 1000
#define LIMIT 5000

static sem_t warm;

static void *busy(void *arg)
{
    void *slots[16] = { 0 };
    unsigned i = (unsigned)(long)arg;

    for (unsigned n = 0; n < LIMIT; n++) {
        unsigned k = i++ % 16;

        free(slots[k]);
        slots[k] = malloc(16 + k * 16);
        if (i % 3 == 0)
            slots[k] = realloc(slots[k], 400);
        if (n == WARMUP)
            sem_post(&warm);
    }
    for (;;)
        pause();
    return NULL;
}

int main(void)
{
    pthread_t th;

    sem_init(&warm, 0, 0);
    mtrace();
    for (int i = 0; i < 3; i++)
        pthread_create(&th, NULL, busy, (void *)(long)i);
    for (int i = 0; i < 3; i++)
        while (sem_wait(&warm) != 0)
            ;
    say("exiting\n");
    return 0;
}
