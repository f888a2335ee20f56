/* SPDX-License-Identifier: GPL-3.0-or-later
 * tls_main.c - 3 rounds of 8 threads using the __thread variables of a
 * dlopen()ed plugin (dynamic TLS allocated by the loader through malloc
 * inside __tls_get_addr), then dlclose.  Known leaks: none.
 * Usage: tls_main /abs/path/tls_plugin.so */
#include <dlfcn.h>
#include <mcheck.h>
#include <pthread.h>
#include "util.h"

static int (*tls_touch)(int);

static void *worker(void *arg)
{
    long sum = 0;

    for (int i = 0; i < 1000; i++)
        sum += tls_touch(i + (int)(long)arg);
    return (void *)sum;
}

int main(int argc, char **argv)
{
    pthread_t th[8];
    void *h;

    if (argc < 2)
        return 2;
    mtrace();
    h = dlopen(argv[1], RTLD_NOW);
    if (!h)
        return 1;
    *(void **)&tls_touch = dlsym(h, "tls_touch");
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 8; i++)
            pthread_create(&th[i], NULL, worker, (void *)(long)i);
        for (int i = 0; i < 8; i++)
            pthread_join(th[i], NULL);
    }
    dlclose(h);
    say("done\n");
    return 0;
}
