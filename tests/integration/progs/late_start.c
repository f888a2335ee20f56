/* SPDX-License-Identifier: GPL-3.0-or-later
 * late_start.c - mtrace() is called while 3 threads are busy allocating
 * and freeing, and main then frees 100 blocks allocated before tracing
 * started.  Frees of blocks allocated before mtrace() must not be logged
 * (no "never alloc'd").  Known leaks: 1234, 4321 (allocated by main after
 * mtrace()).  The threads free everything they allocate.
 * With "stop", muntrace() is called while the threads are still busy:
 * then the leaks depend on timing, but the log must stay consistent.
 * The threads and main move through phases together: in each phase every
 * thread does STEP rounds and says so (a semaphore), and main waits for
 * that before its next step (no delays): the threads are busy at mtrace()
 * and muntrace() on any machine.  After mtrace() a thread does at most
 * CAP rounds a phase, then waits for the next one, so the log does not
 * grow with the time the phases take. */
#include <limits.h>
#include <mcheck.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define NTHREADS 3
#define NPRE 100
#define STEP 2000
#define CAP (4 * STEP)
#define UNTRACED 1 /* the phase before mtrace(): no cap */
#define END 99

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t moved = PTHREAD_COND_INITIALIZER;
static atomic_int phase = UNTRACED; /* written under lock */
static sem_t stepped;

static void set_phase(int p)
{
    pthread_mutex_lock(&lock);
    atomic_store(&phase, p);
    pthread_cond_broadcast(&moved);
    pthread_mutex_unlock(&lock);
}

static void wait_phase_after(int p)
{
    pthread_mutex_lock(&lock);
    while (atomic_load(&phase) == p)
        pthread_cond_wait(&moved, &lock);
    pthread_mutex_unlock(&lock);
}

/* main: until every thread has done STEP rounds in this phase. */
static void step(void)
{
    for (int i = 0; i < NTHREADS; i++)
        while (sem_wait(&stepped) != 0)
            ;
}

static void *busy(void *arg)
{
    void *slots[64] = { 0 };
    unsigned i = (unsigned)(long)arg, in_phase = 0;
    int p = UNTRACED, now;

    while ((now = atomic_load(&phase)) != END) {
        unsigned k = i++ % 64;

        if (now != p) {
            p = now;
            in_phase = 0;
        }
        free(slots[k]);
        slots[k] = malloc(8 + k * 4);
        if (i % 5 == 0)
            slots[k] = realloc(slots[k], 100 + k);
        if (++in_phase == STEP)
            sem_post(&stepped);
        if (in_phase >= (p == UNTRACED ? UINT_MAX : CAP))
            wait_phase_after(p);
    }
    for (int k = 0; k < 64; k++)
        free(slots[k]);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    void *pre[NPRE];

    for (int i = 0; i < NPRE; i++)
        pre[i] = used(malloc(20 + i));
    sem_init(&stepped, 0, 0);
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, busy, (void *)(long)i);
    step();
    mtrace();
    escape(malloc(1234));
    for (int i = 0; i < NPRE; i++)
        free(pre[i]);
    set_phase(2);
    step();
    if (argc > 1 && strcmp(argv[1], "stop") == 0) {
        muntrace();
        set_phase(3);
        step();
    }
    set_phase(END);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    escape(malloc(4321));
    say("done\n");
    return 0;
}
