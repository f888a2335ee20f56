/* SPDX-License-Identifier: GPL-3.0-or-later
 * fork_dlopen.c - one thread dlopen()s, uses and dlclose()s a plugin in a
 * loop while main forks; each child allocates, frees and exits.  Must not
 * hang.  Known leaks: none.  Prints "forks N ok M".
 * With "held", the other thread instead sits inside a dl_iterate_phdr()
 * callback (holding the loader's write lock, as glibc's dlopen does while
 * it allocates) at every fork: the child inherits the lock held, always.
 * Usage: fork_dlopen PLUGIN NFORKS [held] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "util.h"

static atomic_int stop;
static const char *plugin;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int inside, forked; /* under lock */

/* Inside dl_iterate_phdr: tell main, and wait until it has forked. */
static int hold_loader_lock(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info;
    (void)size;
    (void)arg;
    pthread_mutex_lock(&lock);
    inside = 1;
    pthread_cond_broadcast(&cond);
    while (!forked && !atomic_load(&stop))
        pthread_cond_wait(&cond, &lock);
    forked = 0;
    pthread_mutex_unlock(&lock);
    return 1; /* once per fork */
}

static void *holder(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        dl_iterate_phdr(hold_loader_lock, NULL);
    return NULL;
}

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

static int fork_once(int held)
{
    int status;
    if (held) { /* wait until the other thread holds the loader's lock */
        pthread_mutex_lock(&lock);
        while (!inside)
            pthread_cond_wait(&cond, &lock);
        inside = 0;
        pthread_mutex_unlock(&lock);
    }
    pid_t pid = fork();
    if (held && pid != 0) {
        pthread_mutex_lock(&lock);
        forked = 1;
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
    }

    if (pid == 0) {
        free(used(malloc(100)));
        _exit(0);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
    int n, ok = 0, held = argc > 3 && strcmp(argv[3], "held") == 0;
    pthread_t th;

    if (argc < 3)
        return 2;
    plugin = argv[1];
    n = atoi(argv[2]);
    mtrace();
    pthread_create(&th, NULL, held ? holder : loader, NULL);
    for (int i = 0; i < n; i++)
        ok += fork_once(held);
    pthread_mutex_lock(&lock); /* wakes a holder waiting for a fork */
    atomic_store(&stop, 1);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    pthread_join(th, NULL);
    say("forks %d ok %d\n", n, ok);
    return ok == n ? 0 : 1;
}
