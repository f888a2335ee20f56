/* SPDX-License-Identifier: GPL-3.0-or-later
 * fork_threads.c - fork repeatedly while another thread hammers the
 * allocator; each child allocates, frees and exits.  Must never hang.
 * Prints "forks N ok M".  Usage: fork_threads [NFORKS] */
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

static atomic_int stop;

static void *hammer(void *arg)
{
    void *slots[32] = { 0 };
    unsigned i = 0;

    (void)arg;
    while (!atomic_load(&stop)) {
        unsigned k = i++ % 32;

        free(slots[k]);
        slots[k] = malloc(16 + k * 8);
        if (i % 7 == 0)
            slots[k] = realloc(slots[k], 300);
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
        pid_t pid = fork();

        if (pid == 0)
            child();
        if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            ok++;
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    say("forks %d ok %d\n", nforks, ok);
    return ok == nforks ? 0 : 1;
}
