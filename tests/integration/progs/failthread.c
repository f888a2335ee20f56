/* SPDX-License-Identifier: GPL-3.0-or-later
 * failthread.c - preloaded before libmtrace.so: pthread_create() always
 * fails with EAGAIN, as it does past RLIMIT_NPROC or under a seccomp
 * policy.  For programs that create no thread of their own. */
#include <errno.h>
#include <pthread.h>

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
                   void *(*fn)(void *), void *arg)
{
    (void)t;
    (void)attr;
    (void)fn;
    (void)arg;
    return EAGAIN;
}
