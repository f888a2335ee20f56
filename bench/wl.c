/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wl.c - allocation-heavy C workloads for `make bench`.
 *
 *   wl pairs   COUNT THREADS   COUNT malloc/free pairs split over THREADS,
 *                              14-frame stacks (the anchor workload)
 *   wl deep    COUNT           the same with 36-frame stacks, one thread
 *   wl realloc COUNT           COUNT reallocs of blocks that grow and shrink
 *   wl live    COUNT [SIZE]    holds COUNT blocks of SIZE bytes (32) live at
 *                              once, then frees them: peak RSS per live
 *                              block
 *
 * Every workload calls mtrace() first and muntrace() last, so glibc's
 * tracer (which traces only in between) and ours see the same events, and
 * leaks LEAKS blocks on purpose so leak checkers have something to report.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include <mcheck.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chain.h"

#define RING 256    /* blocks each worker keeps live while churning */
#define VARIANTS 16 /* distinct call stacks per workload            */
#define LEAKS 3
#define MAXTHR 64

/* Chain depths chosen so that the whole stack (chain + leaf + worker +
 * main + libc's three start-up frames) is about 14, resp. 36, frames. */
#define DEPTH_PAIRS 8
#define DEPTH_DEEP 30

struct worker {
    unsigned long first, count; /* iterations [first, first+count) */
    int depth;
    void *ring[RING];
    pthread_t tid;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        perror("malloc");
        exit(2);
    }
    return p;
}

/* Sizes from 16 bytes to ~1 KiB, mostly small, as in typical programs. */
static size_t pick_size(unsigned long i)
{
    unsigned long h = mix(i);
    return 16 + (h % 64) * ((h >> 20) % 4 ? 2 : 16);
}

/* Leaf of the pairs workloads: replace one ring slot, so each call is
 * one malloc and (after the ring fills) one free. */
__attribute__((noinline)) static void leaf_pair(struct walk *w)
{
    struct worker *k = w->ctx;
    void **slot = &k->ring[w->i % RING];
    free(*slot);
    *slot = xmalloc(pick_size(w->i));
    memset(*slot, 0, 8);
}

/* Leaf of the realloc workload: resize one ring slot to a new size. */
__attribute__((noinline)) static void leaf_realloc(struct walk *w)
{
    struct worker *k = w->ctx;
    void **slot = &k->ring[w->i % RING];
    size_t n = pick_size(w->i) * (1 + w->i % 4);
    void *p = realloc(*slot, n);
    if (!p) {
        perror("realloc");
        exit(2);
    }
    memset(p, 1, 8);
    *slot = p;
}

static void run_chain(struct worker *k, void (*leaf)(struct walk *))
{
    struct walk w = { .leaf = leaf, .ctx = k };
    for (unsigned long i = k->first; i < k->first + k->count; i++) {
        w.i = i;
        w.variant = mix(i * 7 + 1) % VARIANTS;
        chain_call(&w, k->depth);
    }
}

/* Clears the slots too: a stale pointer to a freed block would make a
 * recycled leaked block look reachable to a leak scanner. */
static void drain_ring(struct worker *k)
{
    for (int s = 0; s < RING; s++) {
        free(k->ring[s]);
        k->ring[s] = NULL;
    }
}

static void *pairs_thread(void *arg)
{
    struct worker *k = arg;
    run_chain(k, leaf_pair);
    drain_ring(k);
    return NULL;
}

/* Splits COUNT iterations evenly over `threads` workers. */
static void run_pairs(unsigned long count, int threads, int depth)
{
    static struct worker ks[MAXTHR];
    for (int t = 0; t < threads; t++) {
        ks[t].first = count / threads * t;
        ks[t].count = count / threads;
        ks[t].depth = depth;
    }
    if (threads == 1) {
        pairs_thread(&ks[0]); /* no thread: the plain one-thread case */
        return;
    }
    for (int t = 0; t < threads; t++)
        if (pthread_create(&ks[t].tid, NULL, pairs_thread, &ks[t]))
            exit(2);
    for (int t = 0; t < threads; t++)
        pthread_join(ks[t].tid, NULL);
}

static void run_realloc(unsigned long count)
{
    static struct worker k;
    k.count = count;
    k.depth = DEPTH_PAIRS;
    run_chain(&k, leaf_realloc);
    drain_ring(&k);
}

static size_t live_size = 32;

/* Leaf of the live workload: the block stays until the end. */
__attribute__((noinline)) static void leaf_live(struct walk *w)
{
    void **blocks = w->ctx;
    blocks[w->i] = xmalloc(live_size);
    memset(blocks[w->i], 2, 8);
}

static void run_live(unsigned long count)
{
    void **blocks = xmalloc(count * sizeof *blocks);
    struct walk w = { .leaf = leaf_live, .ctx = blocks };
    for (w.i = 0; w.i < count; w.i++) {
        w.variant = w.i % 4; /* a few stacks: the table stays small */
        chain_call(&w, DEPTH_PAIRS);
    }
    for (unsigned long i = 0; i < count; i++)
        free(blocks[i]);
    free(blocks);
}

/* Deliberate leaks, unreachable once this returns. */
__attribute__((noinline)) static void leak_a_few(void)
{
    for (int n = 0; n < LEAKS; n++) {
        char *volatile p = xmalloc(40 + n);
        memset(p, 3, 8);
    }
}

static int usage(void)
{
    fputs("usage: wl pairs COUNT THREADS | deep COUNT | realloc COUNT"
          " | live COUNT [SIZE]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    unsigned long count = strtoul(argv[2], NULL, 0);
    int threads = argc > 3 && !strcmp(argv[1], "pairs") ? atoi(argv[3]) : 1;
    if (threads < 1 || threads > MAXTHR)
        return usage();

    mtrace();
    if (!strcmp(argv[1], "pairs"))
        run_pairs(count, threads, DEPTH_PAIRS);
    else if (!strcmp(argv[1], "deep"))
        run_pairs(count, 1, DEPTH_DEEP);
    else if (!strcmp(argv[1], "realloc"))
        run_realloc(count);
    else if (!strcmp(argv[1], "live")) {
        if (argc > 3)
            live_size = strtoul(argv[3], NULL, 0);
        run_live(count);
    }
    else
        return usage();
    leak_a_few();
    muntrace();
    return 0;
}
