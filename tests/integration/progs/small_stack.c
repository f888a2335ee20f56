/* SPDX-License-Identifier: GPL-3.0-or-later
 * small_stack.c - a thread with a 64 KiB stack uses KIB KiB of it, then
 * allocates: how much stack does one traced malloc() need?  Known leaks:
 * 33.  Usage: small_stack KIB */
#include <alloca.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static size_t use;

static void *worker(void *arg)
{
    char *p = alloca(use);

    (void)arg;
    memset(p, 1, use);
    escape(p);
    return used(malloc(33));
}

int main(int argc, char **argv)
{
    pthread_attr_t attr;
    pthread_t th;

    if (argc < 2)
        return 2;
    use = (size_t)atoi(argv[1]) * 1024;
    mtrace();
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 65536);
    if (pthread_create(&th, &attr, worker, NULL) != 0)
        return 1;
    pthread_join(th, NULL);
    say("ok\n");
    return 0;
}
