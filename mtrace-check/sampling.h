/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sampling.h - what one recorded block of a sampled log stands for
 * (doc/format.md, "Sampled logs"): a block of SIZE bytes was recorded
 * with probability p = 1 - exp(-(SIZE + 1) / RATE) below the rate, 1 from
 * it up, so it counts as 1/p blocks of SIZE bytes.  The report's groups
 * (engine.c) and the heap profile (pprofdata.c, through the timeline)
 * scale by the same p.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_SAMPLING_H
#define MTC_SAMPLING_H

#include <stdint.h>

/* 1 - exp(-x) for 0 < x <= 1, by its series: the checker needs no libm
 * for it. */
static inline double sample_one_minus_exp_neg(double x)
{
    double sum = 0, term = -1;
    for (int k = 1; k <= 20; k++) {
        term *= -x / k;
        sum += term;
    }
    return sum;
}

/* The probability that a block of SIZE bytes was recorded (RATE > 0). */
static inline double sample_probability(uint64_t size, uint64_t rate)
{
    return size >= rate ? 1
                        : sample_one_minus_exp_neg(((double)size + 1) /
                                                   (double)rate);
}

/* Its bytes as an estimate, rounded per block as the report rounds. */
static inline uint64_t sample_bytes(uint64_t size, double p)
{
    return (uint64_t)((double)size / p + 0.5);
}

#endif
