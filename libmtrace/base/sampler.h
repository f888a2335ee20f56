/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sampler.h - sampling mode (MEMLEAK_CONFIG=sample=BYTES): which
 * allocations are recorded, and what each recorded one stands for.
 *
 * As in tcmalloc and jemalloc, bytes are sampled, not calls: every byte
 * allocated is a sampling point with probability 1/RATE, so a block of
 * SIZE bytes (counted as SIZE + 1, so that empty blocks can be sampled
 * too) is recorded with probability p = 1 - exp(-(SIZE + 1) / RATE).  Each
 * thread counts down the bytes to its next sampling point, drawn from the
 * exponential distribution of mean RATE; an allocation that does not reach
 * it costs a subtraction.  Blocks of RATE bytes or more are always
 * recorded (p = 1) and leave the countdown alone.  A recorded block stands
 * for 1/p blocks of its size (unbias, then sum: per block, so estimates of
 * any group of blocks are unbiased).  Unrecorded blocks are never entered
 * in the live table, so their frees find nothing there.
 *
 * Without sampling RATE is 0 and every allocation is recorded, weight 1:
 * the hot-path test is one compare.  GPL-3.0-or-later. */
#ifndef MT_SAMPLER_H
#define MT_SAMPLER_H
#include <stddef.h>
#include <stdint.h>

/* Bytes between sampling points on average; 0: every block recorded. */
extern size_t mt_sample_rate;
/* This thread's bytes to go before its next sampling point. */
extern __thread int64_t mt_sample_left
    __attribute__((tls_model("initial-exec")));

/* The countdown reached (or never set, on a thread's first allocation):
 * true when the block of SIZE bytes is to be recorded; draws the next
 * sampling point. */
int sampler_reached(size_t size);

/* Whether an allocation of SIZE bytes is to be recorded.  Inline: it is
 * all an unrecorded allocation costs. */
static inline int sampler_wants(size_t size)
{
    if (size >= mt_sample_rate) /* no sampling, or a big block */
        return 1;
    int64_t left = mt_sample_left - (int64_t)(size + 1);
    if (__builtin_expect(left > 0, 1)) {
        mt_sample_left = left;
        return 0;
    }
    return sampler_reached(size);
}

/* Which addresses may hold a recorded block, approximately: a count per
 * hash bucket of the recorded blocks live there (saturating: a full bucket
 * stays "maybe" for good).  A free of an address whose bucket is empty was
 * never recorded and goes straight to libc, without the live table. */
#define SAMPLE_FILTER_BITS 12
extern _Atomic unsigned short mt_sample_filter[1u << SAMPLE_FILTER_BITS];

static inline unsigned sampler_bucket(const void *ptr)
{
    return (unsigned)((((uintptr_t)ptr >> 4) * 0x9e3779b97f4a7c15ull) >>
                      (64 - SAMPLE_FILTER_BITS));
}

/* False only when PTR surely is no recorded block (sampling mode). */
static inline int sampler_may_hold(const void *ptr)
{
    return !mt_sample_rate ||
           __atomic_load_n(
               (unsigned short *)&mt_sample_filter[sampler_bucket(ptr)],
               __ATOMIC_RELAXED) != 0;
}

/* A recorded block at PTR entered the live table / left it. */
void sampler_hold(const void *ptr);
void sampler_release(const void *ptr);

/* Block counts in sampling mode are kept in units of 1/SAMPLE_COUNT_ONE
 * block (weights are fractional); without sampling in whole blocks. */
#define SAMPLE_COUNT_ONE 1024

/* What a recorded block of SIZE bytes stands for: *BYTES (rounded) and
 * *BLOCKS (in count units: sampler_count_unit() per block). */
void sampler_weigh(size_t size, long *bytes, long *blocks);
/* 1, or SAMPLE_COUNT_ONE in sampling mode. */
long sampler_count_unit(void);

/* Starts sampling every RATE bytes (0: off).  SEED, when nonzero, makes
 * the sampling points the same from run to run (tests); else they are
 * seeded from the clock. */
void sampler_configure(size_t rate, uint64_t seed);

/* Exposed for the unit tests: -ln(U) for U in (0, 1], and 1 - exp(-X)
 * for X >= 0, both to about 1e-12 relative. */
double sampler_neg_log(double u);
double sampler_one_minus_exp_neg(double x);

#endif
