/* SPDX-License-Identifier: GPL-3.0-or-later
 * exit_busy.c - main returns while 3 threads are still allocating and
 * freeing: the log is finished at exit while events keep arriving.  The
 * program must exit normally (status 0) and the log stay consistent; which
 * blocks are still live at that moment depends on timing. */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "util.h"

static void *busy(void *arg)
{
    void *slots[16] = { 0 };
    unsigned i = (unsigned)(long)arg;

    for (;;) {
        unsigned k = i++ % 16;

        free(slots[k]);
        slots[k] = malloc(16 + k * 16);
        if (i % 3 == 0)
            slots[k] = realloc(slots[k], 400);
    }
    return NULL;
}

int main(void)
{
    struct timespec ts = { 0, 50 * 1000000L };
    pthread_t th;

    mtrace();
    for (int i = 0; i < 3; i++)
        pthread_create(&th, NULL, busy, (void *)(long)i);
    nanosleep(&ts, NULL);
    say("exiting\n");
    return 0;
}
