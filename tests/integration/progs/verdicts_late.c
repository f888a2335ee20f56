/* SPDX-License-Identifier: GPL-3.0-or-later
 * verdicts_late.c - collection starts late (mtrace() in main): blocks
 * allocated before it, in the main arena and in a thread's arena, hold the
 * only pointers to blocks allocated after.  Those must come out still
 * reachable (tests-verdicts.sh). */
#include "util.h"
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>

struct holder {
    void *slot[8];
};

struct holder *main_holder, *thread_holder;

static void *make_holder(void *arg)
{
    (void)arg;
    thread_holder = calloc(1, sizeof *thread_holder); /* a thread arena */
    return NULL;
}

static void *alloc(size_t n)
{
    void *p = malloc(n);
    escape(p);
    memset(p, 0, n);
    return p;
}

int main(void)
{
    main_holder = calloc(1, sizeof *main_holder);
    pthread_t t;
    pthread_create(&t, NULL, make_holder, NULL);
    pthread_join(t, NULL);
    mtrace();
    main_holder->slot[3] = alloc(1181);
    thread_holder->slot[5] = alloc(1182);
    alloc(1183); /* definitely lost */
    return 0;
}
