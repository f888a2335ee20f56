/* SPDX-License-Identifier: GPL-3.0-or-later
 * cancel.c - 20 times: a thread allocates and frees in a loop, calling
 * pthread_testcancel() every 5000 pairs, and is cancelled after 2 ms.
 * The tracer's own write(2) is a cancellation point too: the thread must
 * not die inside the tracer holding its locks.  Must not hang.
 * Known leaks: none.  Prints "rounds 20". */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "util.h"

static void *victim(void *arg)
{
    (void)arg;
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

    mtrace();
    for (int r = 0; r < 20; r++) {
        pthread_t th;

        if (pthread_create(&th, NULL, victim, NULL) != 0)
            return 1;
        nanosleep(&ts, NULL);
        pthread_cancel(th);
        pthread_join(th, NULL);
        free(used(malloc(10)));
        rounds++;
    }
    say("rounds %d\n", rounds);
    return 0;
}
