/* SPDX-License-Identifier: GPL-3.0-or-later
 * growth.c MODE - periodic scans (MEMLEAK_CONFIG=scan_every, issue 29).
 *
 * grow: for about 3 s a global cache gains a 1 KiB node every 50 ms
 *   (add_node); meanwhile a thread allocates and frees steadily (a ring of
 *   8 blocks, one replaced each millisecond: churn_one), a second global
 *   cache fills in its first 0.2 s and then stays flat (fill_flat), and a
 *   short-lived thread leaks one 77-byte block (leak_one).  Prints
 *   "nodes=N seconds=S": the nodes the growing cache really gained and
 *   over what time (first node to last, CLOCK_MONOTONIC), so that a test
 *   on a slow machine compares the reported rate with what happened.
 * sleep: nanosleep(1 s), then select() with a 1 s timeout, while periodic
 *   scans stop the thread many times; prints the elapsed time of each
 *   ("nanosleep=S select=S", seconds), the calls' results, and "ok" when
 *   both returned 0 after at least the time asked.
 * newleaks: leaks one block from leak_first, takes a report (mtrace(): a
 *   scan), then leaks one from leak_second and exits: at the exit scan
 *   only leak_second's is new since the previous scan.
 * forks: for 1.5 s, forks a child every 10 ms that allocates, frees and
 *   exits, while periodic scans run in the parent; prints the children.
 * Output without stdio (util.h). */
#define _GNU_SOURCE
#include "util.h"
#include <mcheck.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>

struct node {
    struct node *next;
    char payload[1024 - sizeof(struct node *)];
};

struct small {
    struct small *next;
    char payload[512 - sizeof(struct small *)];
};

static struct node *growing;
static struct small *flat;
static atomic_int stop_churn;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static __attribute__((noinline)) void add_node(void)
{
    struct node *n = malloc(sizeof *n);
    memset(n->payload, 'g', sizeof n->payload);
    n->next = growing;
    growing = n;
}

static __attribute__((noinline)) void fill_flat(void)
{
    struct small *n = malloc(sizeof *n);
    n->next = flat;
    flat = n;
}

static __attribute__((noinline)) void *churn_one(void *old)
{
    free(old);
    char *p = malloc(256);
    memset(p, 'c', 256);
    return p;
}

static void *churn(void *arg)
{
    (void)arg;
    void *ring[8] = { 0 };
    for (unsigned i = 0; !atomic_load(&stop_churn); i++) {
        ring[i % 8] = churn_one(ring[i % 8]);
        nap_ms(1);
    }
    for (int i = 0; i < 8; i++)
        free(ring[i]);
    return NULL;
}

static __attribute__((noinline)) void *leak_one(void *arg)
{
    (void)arg;
    char *p = malloc(77);
    memset(p, 'L', 77);
    escape(p);
    return NULL; /* the only pointer dies with this thread */
}

static __attribute__((noinline)) void *leak_first(void *arg)
{
    (void)arg;
    escape(memset(malloc(91), 'A', 91));
    return NULL;
}

static __attribute__((noinline)) void *leak_second(void *arg)
{
    (void)arg;
    escape(memset(malloc(93), 'B', 93));
    return NULL;
}

/* FN in a thread of its own: its pointer dies with the thread's stack. */
static void in_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

static int newleaks(void)
{
    in_thread(leak_first);
    mtrace(); /* a report point: a scan */
    in_thread(leak_second);
    return 0;
}

static int forks(void)
{
    int children = 0;
    double start = now();
    while (now() - start < 1.5) {
        pid_t pid = fork();
        if (pid == 0) {
            free(used(malloc(100)));
            exit(0);
        }
        if (pid > 0) {
            waitpid(pid, NULL, 0);
            children++;
        }
        free(used(malloc(64)));
        nap_ms(10);
    }
    say("children=%d\n", children);
    return 0;
}

static int grow(void)
{
    pthread_t churner, leaker;
    pthread_create(&churner, NULL, churn, NULL);
    pthread_create(&leaker, NULL, leak_one, NULL);
    pthread_join(leaker, NULL);
    for (int i = 0; i < 40; i++) {
        fill_flat();
        nap_ms(5);
    }
    int nodes = 0;
    double first = 0, last = 0, start = now();
    while (now() - start < 3.0) {
        add_node();
        last = now();
        if (nodes++ == 0)
            first = last;
        nap_ms(50);
    }
    atomic_store(&stop_churn, 1);
    pthread_join(churner, NULL);
    say("nodes=%d seconds=%.6f\n", nodes, last - first);
    return 0;
}

static int sleeps(void)
{
    struct timespec req = { 1, 0 };
    double t0 = now();
    int r1 = nanosleep(&req, NULL);
    double t1 = now();
    struct timeval tv = { 1, 0 };
    int r2 = select(0, NULL, NULL, NULL, &tv);
    double t2 = now();
    say("nanosleep=%.6f select=%.6f results=%d,%d\n", t1 - t0, t2 - t1, r1, r2);
    if (r1 == 0 && r2 == 0 && t1 - t0 >= 1.0 && t2 - t1 >= 1.0)
        say("ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    mtrace();
    if (argc > 1 && strcmp(argv[1], "sleep") == 0)
        return sleeps();
    if (argc > 1 && strcmp(argv[1], "forks") == 0)
        return forks();
    if (argc > 1 && strcmp(argv[1], "newleaks") == 0)
        return newleaks();
    return grow();
}
