/* SPDX-License-Identifier: GPL-3.0-or-later
 * sigstorm.c - signal handlers beside allocating threads.
 *   alloc:  a 1 ms SIGALRM handler that itself mallocs and frees while the
 *           main thread mallocs and frees; the handler's 77-byte blocks
 *           are kept (leaked) 20 times.
 *   prof:   SIGPROF profiling timer at 10 kHz (100 us of CPU time) whose
 *           handler counts and, every 16th time, mallocs and frees; eight
 *           threads each run ROUNDS malloc/free pairs, and go on until the
 *           handler has run 16 times: the kernel charges CPU time by the
 *           tick, so a short run on a busy machine (or a faster tracer)
 *           may see none, whatever ROUNDS is.
 * No deadlock, no crash, a consistent log.  Prints "ticks N".
 * Usage: sigstorm alloc|prof [ROUNDS] */
#include <mcheck.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util.h"

static volatile sig_atomic_t ticks, kept;

static void on_tick(int sig)
{
    (void)sig;
    ticks++;
    if (sig == SIGPROF && ticks % 16)
        return;
    void *p = malloc(77);
    escape(p);
    if (sig == SIGALRM && kept < 20)
        kept++; /* leaked on purpose: the handler's blocks are traced */
    else
        free(p);
}

static long rounds;

#define MIN_TICKS 16 /* the handler's malloc and free ran at least once */

static void *work(void *arg)
{
    (void)arg;
    for (long i = 0; i < rounds || ticks < MIN_TICKS; i++)
        free(used(malloc(16 + i % 200)));
    return NULL;
}

int main(int argc, char **argv)
{
    int prof = argc > 1 && strcmp(argv[1], "prof") == 0;
    struct itimerval on = { { 0, prof ? 100 : 1000 },
                            { 0, prof ? 100 : 1000 } };
    struct itimerval off;
    struct sigaction sa;
    pthread_t th[8];

    rounds = argc > 2 ? atol(argv[2]) : 200000;
    memset(&off, 0, sizeof off);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(prof ? SIGPROF : SIGALRM, &sa, NULL);
    mtrace();
    setitimer(prof ? ITIMER_PROF : ITIMER_REAL, &on, NULL);
    if (prof) {
        for (int i = 0; i < 8; i++)
            pthread_create(&th[i], NULL, work, NULL);
        for (int i = 0; i < 8; i++)
            pthread_join(th[i], NULL);
    } else {
        /* until the handler has kept its 20 blocks, and at least ROUNDS */
        for (long i = 0; i < rounds || kept < 20; i++)
            free(used(malloc(16 + i % 200)));
    }
    setitimer(prof ? ITIMER_PROF : ITIMER_REAL, &off, NULL);
    muntrace();
    say("ticks %d kept %d\n", (int)ticks, (int)kept);
    return 0;
}
