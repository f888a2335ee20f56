/* SPDX-License-Identifier: GPL-3.0-or-later
 * dlopen_race.c - one thread dlopen()s and dlclose()s a plugin in a loop
 * (the loader holds its lock while the plugin is mapped, and allocates)
 * 300 times while 3 threads keep allocating and freeing with many
 * different stacks.  Must not deadlock.  Known leaks: none.
 * Usage: dlopen_race /abs/path/plugin.so */
#include <dlfcn.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "util.h"

static atomic_int stop;
static const char *plugin;

static void *loader(void *arg)
{
    (void)arg;
    for (int n = 0; n < 300; n++) {
        void *h = dlopen(plugin, RTLD_NOW);
        void *(*leak)(void);

        if (!h)
            continue;
        *(void **)&leak = dlsym(h, "plugin_leak");
        free(leak());
        dlclose(h);
    }
    atomic_store(&stop, 1);
    return NULL;
}

static __attribute__((noinline)) void *nested(int depth, unsigned bits)
{
    void *p;

    if (depth == 0)
        return malloc(16 + bits % 100);
    p = nested(depth - 1, bits >> 1);
    escape(p);
    return p;
}

static void *allocator(void *arg)
{
    unsigned i = (unsigned)(long)arg;

    while (!atomic_load(&stop)) {
        free(nested((int)(i % 9), i));
        i += 3;
        if (i % 4 == 0)
            usleep(50);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[4];

    if (argc < 2)
        return 2;
    plugin = argv[1];
    mtrace();
    pthread_create(&th[0], NULL, loader, NULL);
    for (int i = 1; i < 4; i++)
        pthread_create(&th[i], NULL, allocator, (void *)(long)i);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    say("done\n");
    return 0;
}
