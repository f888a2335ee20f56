/* SPDX-License-Identifier: GPL-3.0-or-later
 * fork_dlopen.c - one thread dlopen()s, uses and dlclose()s a plugin in a
 * loop while main forks; each child allocates, frees and exits.  Must not
 * hang.  Known leaks: none.  Prints "forks N ok M".
 * Usage: fork_dlopen PLUGIN NFORKS */
#include <dlfcn.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "util.h"

static atomic_int stop;
static const char *plugin;

static void *loader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        void *h = dlopen(plugin, RTLD_NOW);
        void *(*leak)(void);

        if (!h)
            continue;
        *(void **)&leak = dlsym(h, "plugin_leak");
        free(leak());
        dlclose(h);
    }
    return NULL;
}

static int fork_once(void)
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        free(used(malloc(100)));
        _exit(0);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    int n, ok = 0;
    pthread_t th;

    if (argc < 3)
        return 2;
    plugin = argv[1];
    n = atoi(argv[2]);
    mtrace();
    pthread_create(&th, NULL, loader, NULL);
    for (int i = 0; i < n; i++)
        ok += fork_once();
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    say("forks %d ok %d\n", n, ok);
    return ok == n ? 0 : 1;
}
