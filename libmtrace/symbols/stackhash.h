/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stackhash.h - the stack table's hash of a stack's return addresses.
 * Two independent lanes (even and odd frames), so that the multiplies of a
 * deep stack overlap instead of each waiting for the one before.  Every
 * step is invertible: the unit tests build stacks of different addresses
 * and the same hash with STACKHASH_LANE_A's inverse, to check that the
 * table tells them apart. */
#ifndef MT_STACKHASH_H
#define MT_STACKHASH_H
#include <stdint.h>

#define STACKHASH_SEED_A 0xcbf29ce484222325ull
#define STACKHASH_SEED_B 0x2545f4914f6cdd1dull
#define STACKHASH_MUL_A 0x9e3779b97f4a7c15ull
#define STACKHASH_MUL_B 0xff51afd7ed558ccdull
#define STACKHASH_MUL_END 0xc4ceb9fe1a85ec53ull
#define STACKHASH_SHIFT_A 29

static inline uint64_t stackhash_lane_a(uint64_t h, uint64_t addr)
{
    h = (h ^ addr) * STACKHASH_MUL_A;
    return h ^ (h >> STACKHASH_SHIFT_A);
}

static inline uint64_t stackhash_lane_b(uint64_t h, uint64_t addr)
{
    h = (h ^ addr) * STACKHASH_MUL_B;
    return h ^ (h >> 31);
}

/* The lanes' states after ADDRS[0..N) joined into the hash. */
static inline uint64_t stackhash_end(uint64_t a, uint64_t b)
{
    uint64_t h = (a ^ (b << 32 | b >> 32)) * STACKHASH_MUL_END;
    return h ^ (h >> 32);
}

static inline uint64_t stackhash(void *const *addrs, int n, unsigned epoch)
{
    uint64_t a = STACKHASH_SEED_A ^ epoch, b = STACKHASH_SEED_B ^ (unsigned)n;
    int i = 0;
    for (; i + 1 < n; i += 2) {
        a = stackhash_lane_a(a, (uintptr_t)addrs[i]);
        b = stackhash_lane_b(b, (uintptr_t)addrs[i + 1]);
    }
    if (i < n)
        a = stackhash_lane_a(a, (uintptr_t)addrs[i]);
    return stackhash_end(a, b);
}

#endif
