/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mtrace-sample.h - the arithmetic of a sampled log (mtrace-format.h,
 * MTF_KEY_SAMPLE), in one place for both sides of the log: libmtrace's
 * sampler weighs the blocks it reports with it, mtrace-check the blocks it
 * groups, so the two can never disagree on what a sample stands for.
 *
 * A block of SIZE bytes is recorded with probability
 *     p = 1 - exp(-(SIZE + 1) / RATE)      (SIZE < RATE; else p = 1)
 * and stands for 1 / p blocks of its size.  No libm: the preload library
 * must not call a program's own exp() (ELF interposition), and the checker
 * needs none for it.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTRACE_SAMPLE_H
#define MTRACE_SAMPLE_H

#include <stdint.h>

/* 1 - exp(-x) for x > 0: halve X to at most 1/2, take the series of
 * exp(-x) - 1 there, then square back: (1 + d)^2 - 1 = d (2 + d) keeps
 * small results exact. */
static inline double mtf_one_minus_exp_neg(double x)
{
    int halvings = 0;
    while (x > 0.5 && halvings < 60) {
        x /= 2;
        halvings++;
    }
    double d = 0, term = 1; /* d = exp(-x) - 1 */
    for (int k = 1; k <= 20; k++) {
        term *= -x / k;
        d += term;
    }
    while (halvings-- > 0)
        d = d * (2 + d);
    return -d;
}

/* The probability that a block of SIZE bytes was recorded at RATE (> 0). */
static inline double mtf_sample_probability(uint64_t size, uint64_t rate)
{
    if (size >= rate)
        return 1;
    return mtf_one_minus_exp_neg(((double)size + 1) / (double)rate);
}

#endif
