/* SPDX-License-Identifier: GPL-3.0-or-later
 * thread_exit.c - 50 short-lived threads, each storing a heap block in a
 * pthread key whose destructor frees it at thread exit (after the thread's
 * own code is done), plus one detached thread still allocating when main
 * returns.  Known leaks: none among the joined threads' blocks; 77 bytes
 * leaked once by main. */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define NTHREADS 50

static pthread_key_t key;

static void destroy(void *p)
{
    free(p);
}

static void *worker(void *arg)
{
    size_t n = 100 + (size_t)(long)arg;
    char *p = malloc(n);

    memset(p, 1, n);
    pthread_setspecific(key, p);
    free(used(strdup("scratch")));
    return NULL;
}

int main(void)
{
    pthread_t th[NTHREADS];

    mtrace();
    pthread_key_create(&key, destroy);
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    escape(malloc(77));
    say("joined %d\n", NTHREADS);
    return 0;
}
