/* SPDX-License-Identifier: GPL-3.0-or-later
 * late_start.c - mtrace() is called while 3 threads are busy allocating
 * and freeing, and main then frees 100 blocks allocated before tracing
 * started.  Frees of blocks allocated before mtrace() must not be logged
 * (no "never alloc'd").  Known leaks: 1234, 4321 (allocated by main after
 * mtrace()).  The threads free everything they allocate.
 * With "stop", muntrace() is called while the threads are still busy:
 * then the leaks depend on timing, but the log must stay consistent. */
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

#define NTHREADS 3
#define NPRE 100

static atomic_int stop;

static void *busy(void *arg)
{
    void *slots[64] = { 0 };
    unsigned i = (unsigned)(long)arg;

    while (!atomic_load(&stop)) {
        unsigned k = i++ % 64;

        free(slots[k]);
        slots[k] = malloc(8 + k * 4);
        if (i % 5 == 0)
            slots[k] = realloc(slots[k], 100 + k);
    }
    for (int k = 0; k < 64; k++)
        free(slots[k]);
    return NULL;
}

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };

    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    void *pre[NPRE];

    for (int i = 0; i < NPRE; i++)
        pre[i] = used(malloc(20 + i));
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, busy, (void *)(long)i);
    pause_ms(50);
    mtrace();
    escape(malloc(1234));
    for (int i = 0; i < NPRE; i++)
        free(pre[i]);
    pause_ms(100);
    if (argc > 1 && strcmp(argv[1], "stop") == 0) {
        muntrace();
        pause_ms(50);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    escape(malloc(4321));
    say("done\n");
    return 0;
}
