/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chain.c - CHAIN_STEPS distinct functions that call one another through
 * a table.  Each has its own constant, so identical-code folding cannot
 * merge them, and each uses the callee's result, so no call becomes a
 * tail call: the stack really is `depth` frames deep.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "chain.h"

typedef long (*step_fn)(struct walk *, int);

#define FOR_STEPS(X)                                                           \
    X(0)                                                                       \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) \
        X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25)      \
            X(26) X(27) X(28) X(29) X(30) X(31) X(32) X(33) X(34) X(35) X(36)  \
                X(37) X(38) X(39)

#define DECLARE(n) static long step##n(struct walk *, int);
FOR_STEPS(DECLARE)

#define REFERENCE(n) step##n,
static step_fn const steps[CHAIN_STEPS] = { FOR_STEPS(REFERENCE) };

/* The next function depends on one bit of the variant, so variants
 * differ in which functions make up their stack. */
static inline step_fn next_step(const struct walk *w, int self, int left)
{
    unsigned bit = (w->variant >> (left % 8)) & 1;
    return steps[(self + 1 + bit) % CHAIN_STEPS];
}

/* noclone (GCC only) keeps GCC from specialising a step for a constant
 * argument, which would add copies with other names to the stacks. */
#ifdef __clang__
#define NOCLONE
#else
#define NOCLONE __attribute__((noclone))
#endif

/* The empty asm hides r's value from the optimizer, so the addition
 * after the call stays and the call cannot be turned into a jump. */
#define DEFINE(n)                                                              \
    __attribute__((noinline))                                                  \
    NOCLONE static long step##n(struct walk *w, int left)                      \
    {                                                                          \
        long r = 0;                                                            \
        if (left > 0)                                                          \
            r = next_step(w, n, left)(w, left - 1);                            \
        else                                                                   \
            w->leaf(w);                                                        \
        __asm__ volatile("" : "+r"(r));                                        \
        return r + n;                                                          \
    }
FOR_STEPS(DEFINE)

long chain_call(struct walk *w, int depth)
{
    if (depth < 1)
        depth = 1;
    if (depth > CHAIN_STEPS)
        depth = CHAIN_STEPS;
    return steps[w->variant % CHAIN_STEPS](w, depth - 1);
}
