/* SPDX-License-Identifier: GPL-3.0-or-later
 * fork_threads.c - fork repeatedly while another thread hammers the
 * allocator; each child allocates, frees and exits.  Must never hang.
 * Each fork happens while the hammer is in the middle of a burst of
 * BURST allocation rounds: the work is bounded (NFORKS bursts), not
 * proportional to how long the forks take, so a slow machine writes no
 * bigger log; between bursts the hammer blocks.
 * Prints "forks N ok M".  Usage: fork_threads [NFORKS] */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

#define BURST 2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int bursts, started, stop; /* under lock */

/* The hammer waits for a burst to be asked for (or for the end), says it
 * has started, and runs it.  Returns 0 at the end. */
static int next_burst(void)
{
    int go;

    pthread_mutex_lock(&lock);
    while (started == bursts && !stop)
        pthread_cond_wait(&changed, &lock);
    go = started < bursts;
    if (go)
        started++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    return go;
}

/* main: ask for a burst and wait until the hammer is in it. */
static void start_burst(void)
{
    pthread_mutex_lock(&lock);
    bursts++;
    pthread_cond_broadcast(&changed);
    while (started < bursts)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

static void *hammer(void *arg)
{
    void *slots[32] = { 0 };
    unsigned i = 0;

    (void)arg;
    while (next_burst()) {
        for (int n = 0; n < BURST; n++) {
            unsigned k = i++ % 32;

            free(slots[k]);
            slots[k] = malloc(16 + k * 8);
            if (i % 7 == 0)
                slots[k] = realloc(slots[k], 300);
        }
    }
    for (int k = 0; k < 32; k++)
        free(slots[k]);
    return NULL;
}

static void child(void)
{
    void *p = malloc(4242);

    escape(p);
    p = realloc(p, 8000);
    free(p);
    _exit(0);
}

int main(int argc, char **argv)
{
    int nforks = argc > 1 ? atoi(argv[1]) : 50;
    int ok = 0;
    pthread_t th;

    mtrace();
    pthread_create(&th, NULL, hammer, NULL);
    for (int i = 0; i < nforks; i++) {
        int status;
        pid_t pid;

        start_burst();
        pid = fork();

        if (pid == 0)
            child();
        if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            ok++;
    }
    pthread_mutex_lock(&lock);
    stop = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(th, NULL);
    say("forks %d ok %d\n", nforks, ok);
    return ok == nforks ? 0 : 1;
}
