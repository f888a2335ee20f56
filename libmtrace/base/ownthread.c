/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ownthread.c - see ownthread.h. */
#define _GNU_SOURCE
#include "base/ownthread.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>

int ownthread_start(void *(*body)(void *), sem_t *ready)
{
    sem_init(ready, 0, 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t tid;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create(&tid, &attr, body, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed)
        return -1;
    while (sem_wait(ready) != 0 && errno == EINTR)
        ;
    return 0;
}
