/* SPDX-License-Identifier: GPL-3.0-or-later
 * offload.c - a live log's ring (MEMLEAK_CONFIG=offload, track/offload.h):
 * the same verdicts whether the program's thread enters its events itself
 * or a thread of libmtrace's own does (tests-livelog.sh).  Every block the
 * program means has a size of its own (3000 and up).
 *
 * offload [thread|fork]
 * Prints "tasks=N": the threads in /proc/self/task while the program has
 * one (2 when the ring's consumer runs), then: blocks of every class; a
 * realloc that grows and one that fails (the old block is still the
 * program's, and leaked); many blocks that come and go; a report point
 * (mtrace()), after which a block written there is freed; with "thread",
 * a thread that leaks a block (the ring stops: every thread does its own
 * from then on), else the same block leaked by the main thread; with
 * "fork", a child that grows a block it inherited and leaks one;
 * a block freed by a destructor, and libintl's blocks freed by glibc's
 * freeres after the exit's verdicts.
 * Output without stdio (util.h).  Built at -O1, as verdicts.c. */
#define _GNU_SOURCE
#include "util.h"
#include <dirent.h>
#include <libintl.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>

static void *alloc(size_t n)
{
    void *p = malloc(n);
    escape(p);
    memset(p, 0, n);
    return p;
}

void *kept;     /* still reachable */
char *interior; /* possibly lost */
void *to_free;  /* written at the report point, freed after it */
void *at_exit_block;

static int tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

__attribute__((noinline)) static void make_classes(void)
{
    kept = alloc(3001);
    alloc(3002); /* definitely lost */
    void **a = alloc(3011), **b = alloc(3012);
    a[0] = b; /* definitely lost, and the block it holds indirectly */
    a = b = NULL;
    interior = (char *)alloc(3021) + 100;
    to_free = alloc(3031);
    at_exit_block = alloc(3041);
}

__attribute__((noinline)) static void reallocs(void)
{
    void *p = alloc(3051);
    p = realloc(p, 3052); /* grows: definitely lost at 3052 */
    escape(p);
    void *q = alloc(3061);
    void *r = realloc(hide(q), opaque_size(SIZE_MAX / 2)); /* fails */
    escape(r);
    escape(q); /* still the program's: definitely lost at 3061 */
}

__attribute__((noinline)) static void churn(int n)
{
    for (int i = 0; i < n; i++) {
        void *p = alloc((size_t)(16 + i % 200));
        void *q = realloc(p, (size_t)(300 + i % 100));
        escape(q);
        free(q);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    churn(1000);
    alloc(3071); /* definitely lost, from a thread */
    return NULL;
}

__attribute__((destructor)) static void late(void)
{
    free(at_exit_block); /* after the exit's verdicts: a "-" line */
}

int main(int argc, char **argv)
{
    int threaded = argc > 1 && strcmp(argv[1], "thread") == 0;
    mtrace();
    say("tasks=%d\n", tasks());
    make_classes();
    /* libintl's binding: freed by glibc's freeres, after the verdicts. */
    bindtextdomain("offload-test", "/nonexistent");
    reallocs();
    churn(20000);
    mtrace(); /* a report point */
    free(to_free);
    to_free = NULL;
    churn(2000);
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            /* The child's ring: a block it inherited, grown (its own now,
             * leaked), and a leak of its own. */
            void *grown = realloc(hide(kept), 3082);
            escape(grown);
            kept = NULL;
            alloc(3081);
            churn(1000);
            exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
    }
    if (threaded) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        pthread_join(t, NULL);
    } else {
        alloc(3071); /* as the thread's */
    }
    churn(2000);
    return 0;
}
