/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sampler.c - see sampler.h.  No libm: a program may define its own log()
 * or exp() (ELF interposition would hand us those), so the two functions
 * the sampler needs are computed here. */
#include "base/sampler.h"
#include "mtrace-sample.h"
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

size_t mt_sample_rate;
__thread int64_t mt_sample_left __attribute__((tls_model("initial-exec")));
static __thread uint64_t rng __attribute__((tls_model("initial-exec")));
static uint64_t seed_base;
static int seeded_by_user;
static atomic_uint threads_seeded;

_Atomic unsigned short mt_sample_filter[1u << SAMPLE_FILTER_BITS];

void sampler_hold(const void *ptr)
{
    _Atomic unsigned short *b = &mt_sample_filter[sampler_bucket(ptr)];
    unsigned short n = atomic_load_explicit(b, memory_order_relaxed);
    while (n != USHRT_MAX &&
           !atomic_compare_exchange_weak_explicit(
               b, &n, n + 1, memory_order_relaxed, memory_order_relaxed))
        ;
}

void sampler_release(const void *ptr)
{
    _Atomic unsigned short *b = &mt_sample_filter[sampler_bucket(ptr)];
    unsigned short n = atomic_load_explicit(b, memory_order_relaxed);
    while (n != USHRT_MAX && n != 0 &&
           !atomic_compare_exchange_weak_explicit(
               b, &n, n - 1, memory_order_relaxed, memory_order_relaxed))
        ;
}

void sampler_configure(size_t rate, uint64_t seed)
{
    mt_sample_rate = rate;
    seeded_by_user = seed != 0;
    seed_base = seed;
}

long sampler_count_unit(void)
{
    return mt_sample_rate ? SAMPLE_COUNT_ONE : 1;
}

/* ---- arithmetic --------------------------------------------------------- */

double sampler_neg_log(double u)
{
    /* u = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln(m) = 2 atanh(z),
     * z = (m - 1) / (m + 1), |z| < 0.172: eleven odd terms. */
    uint64_t bits;
    memcpy(&bits, &u, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & ((1ull << 52) - 1)) | (1023ull << 52);
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.4142135623730951) {
        m /= 2;
        e++;
    }
    double z = (m - 1) / (m + 1), z2 = z * z, term = z, sum = 0;
    for (int k = 1; k <= 21; k += 2) {
        sum += term / k;
        term *= z2;
    }
    return -(e * 0.69314718055994530942 + 2 * sum);
}

double sampler_one_minus_exp_neg(double x)
{
    return mtf_one_minus_exp_neg(x); /* one series for both halves */
}

/* ---- the countdown ------------------------------------------------------ */

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A thread's first draw: from the user's seed and the order in which
 * threads first sampled (deterministic for a deterministic program), or
 * from the clock, the pid and where this thread's variables are. */
static void seed_thread(void)
{
    unsigned n = atomic_fetch_add(&threads_seeded, 1);
    uint64_t s = seed_base + n;
    if (!seeded_by_user) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        s ^= (uint64_t)now.tv_nsec ^ (uint64_t)now.tv_sec << 30 ^
             (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)&rng;
    }
    rng = splitmix(s) | 1; /* xorshift's state must not be 0 */
}

static uint64_t next_random(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

/* Bytes to the next sampling point: exponential with mean RATE, >= 1. */
static int64_t draw(void)
{
    double u = (double)((next_random() >> 11) + 1) * 0x1p-53; /* (0, 1] */
    double gap = sampler_neg_log(u) * (double)mt_sample_rate;
    return gap < (double)(INT64_MAX / 2) ? (int64_t)gap + 1 : INT64_MAX / 2;
}

int sampler_reached(size_t size)
{
    if (rng == 0) {
        /* The thread's first allocation: its countdown starts now. */
        seed_thread();
        int64_t left = draw() - (int64_t)(size + 1);
        if (left > 0) {
            mt_sample_left = left;
            return 0;
        }
    }
    /* Memoryless: the next point may be counted from this block's end. */
    mt_sample_left = draw();
    return 1;
}

void sampler_weigh(size_t size, long *bytes, long *blocks)
{
    if (size >= mt_sample_rate) { /* recorded surely (or no sampling) */
        *bytes = (long)size;
        *blocks = sampler_count_unit();
        return;
    }
    double p = mtf_sample_probability(size, mt_sample_rate);
    *bytes = (long)((double)size / p + 0.5);
    *blocks = (long)(SAMPLE_COUNT_ONE / p + 0.5);
}
