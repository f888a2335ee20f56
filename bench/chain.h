/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chain.h - a call chain of distinct, non-inlinable functions, so every
 * allocation made at its leaf has a deep stack that an unwinder must walk.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef BENCH_CHAIN_H
#define BENCH_CHAIN_H

#ifdef __cplusplus
extern "C" {
#endif

struct walk {
    unsigned long i;  /* iteration number, for the leaf    */
    unsigned variant; /* picks one of several call paths   */
    void (*leaf)(struct walk *);
    void *ctx; /* the leaf's own state              */
};

/* Number of distinct step functions; a chain may be up to this deep. */
#define CHAIN_STEPS 40

/* Calls w->leaf(w) under `depth` distinct step frames.  Different
 * variants go through different functions, so each variant is its own
 * call stack (a tracer's stack table sees `variants` distinct stacks). */
long chain_call(struct walk *w, int depth);

/* A cheap deterministic hash, to pick sizes and variants. */
static inline unsigned long mix(unsigned long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdUL;
    x ^= x >> 33;
    return x;
}

#ifdef __cplusplus
}
#endif
#endif
