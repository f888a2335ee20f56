/* SPDX-License-Identifier: GPL-3.0-or-later
 * cancel.c - 20 times: a thread allocates and frees in a loop, calling
 * pthread_testcancel() every 5000 pairs, and is cancelled 2 ms after it
 * has started allocating (a semaphore: on a loaded machine a fixed delay
 * from pthread_create could cancel it before its first malloc).
 * The tracer's own write(2) is a cancellation point too: the thread must
 * not die inside the tracer holding its locks.  Must not hang.
 * Known leaks: none.  Prints "rounds 20". */
#include <mcheck.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
#include "util.h"

static sem_t running;

static void *victim(void *arg)
{
    (void)arg;
    free(used(malloc(32)));
    sem_post(&running);
    for (;;) {
        for (int i = 0; i < 5000; i++)
            free(used(malloc(32 + i % 100)));
        pthread_testcancel();
    }
    return NULL;
}

int main(void)
{
    struct timespec ts = { 0, 2 * 1000000L };
    int rounds = 0;

    sem_init(&running, 0, 0);
    mtrace();
    for (int r = 0; r < 20; r++) {
        pthread_t th;

        if (pthread_create(&th, NULL, victim, NULL) != 0)
            return 1;
        while (sem_wait(&running) != 0)
            ;
        nanosleep(&ts, NULL);
        pthread_cancel(th);
        pthread_join(th, NULL);
        free(used(malloc(10)));
        rounds++;
    }
    say("rounds %d\n", rounds);
    return 0;
}
