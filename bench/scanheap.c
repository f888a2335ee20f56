/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scanheap.c - the heap the reachability scan is timed on (run-bench.py,
 * "Reachability scan"): THREADS threads build N blocks between them (160 to
 * 352 bytes, 256 on average: 256 MB for 1M), each a linked list with a
 * second pointer per block into its own earlier part and integers for the
 * rest, one block in 1000 dropped (leaked); the head of each list stays in
 * its thread's stack.  When all are built, main prints
 * "exit-start SECONDS" (CLOCK_MONOTONIC) and calls exit() while the threads
 * wait: the time to the end of the process is what a leak checker's exit
 * check costs (LeakSanitizer's; libmtrace's scan, whose own figure is in
 * its exit report).
 * With a third argument WAIT (seconds), main first naps 1 ms at a time for
 * WAIT seconds on the finished heap and prints "max-late MS", the most a
 * nap overran: how long the program was kept from running meanwhile (the
 * periodic scans' stall, periodic-bench.py).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct node {
    struct node *next, *back;
    uint64_t data[];
};

static long per_thread;
static int built;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static void *build(void *arg)
{
    uint64_t seed = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
    struct node *head = NULL, *keep[64] = { 0 };
    for (long i = 0; i < per_thread; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        size_t size = 160 + (seed % 193);
        struct node *n = malloc(size);
        if (n == NULL)
            abort();
        for (size_t k = 0; k < (size - sizeof *n) / 8; k++)
            n->data[k] = seed + k;
        n->back = keep[seed % 64];
        if (i % 1000 == 999)
            continue; /* leaked */
        n->next = head;
        head = n;
        keep[seed % 64] = n;
    }
    pthread_mutex_lock(&lock);
    built++;
    pthread_cond_broadcast(&changed);
    for (;;) /* until the process exits */
        pthread_cond_wait(&changed, &lock);
    return head;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Naps of 1 ms for WAIT seconds; prints the longest overrun. */
static void nap_and_measure(double wait)
{
    double start = now(), late = 0;
    while (now() - start < wait) {
        struct timespec ms = { 0, 1000000 };
        double t0 = now();
        nanosleep(&ms, NULL);
        double over = now() - t0 - 1e-3;
        if (over > late)
            late = over;
    }
    char line[64];
    int n = snprintf(line, sizeof line, "max-late %.3f\n", late * 1e3);
    if (write(1, line, (size_t)n) != n)
        exit(1);
}

int main(int argc, char **argv)
{
    long total = argc > 1 ? atol(argv[1]) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 8;
    double wait = argc > 3 ? atof(argv[3]) : 0;
    if (total < 1 || threads < 1 || threads > 64 || wait < 0) {
        fprintf(stderr, "usage: scanheap [BLOCKS [THREADS [WAIT]]]\n");
        return 2;
    }
    per_thread = total / threads;
    pthread_t t[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, build, (void *)(uintptr_t)(i + 1));
    pthread_mutex_lock(&lock);
    while (built < threads)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    if (wait > 0)
        nap_and_measure(wait);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    char line[64];
    int n = snprintf(line, sizeof line, "exit-start %ld.%09ld\n",
                     (long)ts.tv_sec, ts.tv_nsec);
    if (write(1, line, (size_t)n) != n)
        return 1;
    exit(0);
}
