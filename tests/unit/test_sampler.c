/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sampler.c - sampler.h: its arithmetic against libm, how often
 * blocks of each size are recorded, and that the weights make unbiased
 * estimates of bytes and blocks. */
#include "unit.h"
#include "base/sampler.h"
#include "mtrace-sample.h"
#include <math.h>

START_TEST(arithmetic_matches_libm)
{
    uint64_t s = 12345;
    for (int i = 0; i < 100000; i++) {
        double u = (double)((ut_rand(&s) >> 11) + 1) * 0x1p-53;
        if (i < 60)
            u = ldexp(1.0, -i); /* powers of two down to 2^-59 */
        double want = -log(u), got = sampler_neg_log(u);
        UT_CHECK(fabs(got - want) <= 1e-12 * (want > 1 ? want : 1),
                 "-ln(%.17g) = %.17g, want %.17g", u, got, want);
        double x = (double)(ut_rand(&s) >> 11) * 0x1p-53 * (i % 7 ? 1 : 40);
        want = -expm1(-x);
        got = sampler_one_minus_exp_neg(x);
        UT_CHECK(fabs(got - want) <= 1e-12 * want + 1e-300,
                 "1 - exp(-%.17g) = %.17g, want %.17g", x, got, want);
    }
    ck_assert(sampler_neg_log(1.0) == 0);
}
END_TEST

/* The weight the checker gives a sampled block (include/mtrace-sample.h)
 * is the one the sampler reports it with: 1 / p of its size. */
START_TEST(shared_weight_matches_libm)
{
    const uint64_t rates[] = { 1, 64, 997, 4096, 1u << 20 };
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
        for (uint64_t size = 0; size <= 2 * rates[r] && size < 300000;
             size += 1 + size / 7) {
            double want = size >= rates[r]
                              ? 1
                              : -expm1(-((double)size + 1) / (double)rates[r]);
            double got = mtf_sample_probability(size, rates[r]);
            UT_CHECK(fabs(got - want) <= 1e-12 * want,
                     "p(%llu bytes at rate %llu) = %.17g, want %.17g",
                     (unsigned long long)size, (unsigned long long)rates[r],
                     got, want);
        }
    sampler_configure(997, 1);
    long bytes, blocks;
    sampler_weigh(500, &bytes, &blocks);
    ck_assert_int_eq(bytes,
                     (long)(500 / mtf_sample_probability(500, 997) + 0.5));
    sampler_configure(0, 0);
}
END_TEST

START_TEST(without_sampling_every_block_counts_once)
{
    sampler_configure(0, 0);
    long bytes, blocks;
    for (size_t n = 0; n < 100000; n += 997) {
        ck_assert(sampler_wants(n));
        sampler_weigh(n, &bytes, &blocks);
        ck_assert_int_eq(bytes, (long)n);
        ck_assert_int_eq(blocks, 1);
    }
    ck_assert_int_eq(sampler_count_unit(), 1);
    ck_assert(sampler_may_hold((void *)0x1234));
}
END_TEST

/* Records N blocks of SIZE at rate RATE; returns how many were recorded
 * and adds their weights. */
static long record(size_t size, long n, double *bytes, double *blocks)
{
    long hits = 0, b, k;
    for (long i = 0; i < n; i++)
        if (sampler_wants(size)) {
            hits++;
            sampler_weigh(size, &b, &k);
            *bytes += (double)b;
            *blocks += (double)k / SAMPLE_COUNT_ONE;
        }
    return hits;
}

START_TEST(probability_and_weights)
{
    const size_t rate = 4096;
    sampler_configure(rate, 7);
    static const size_t sizes[] = { 0, 1, 24, 100, 600, 4095 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const long n = 400000;
        double bytes = 0, blocks = 0;
        long hits = record(sizes[i], n, &bytes, &blocks);
        double p = -expm1(-(double)(sizes[i] + 1) / rate);
        double sd = sqrt(n * p * (1 - p));
        ck_assert_msg(fabs(hits - n * p) < 5 * sd + 1,
                      "size %zu: %ld of %ld recorded, expected %.0f", sizes[i],
                      hits, n, n * p);
        /* Unbiased: the estimate of the blocks is n within the same
         * bound, relative. */
        ck_assert_msg(fabs(blocks - n) < 5 * sd / p + 1,
                      "size %zu: %.0f blocks estimated of %ld", sizes[i],
                      blocks, n);
        ck_assert_msg(fabs(bytes - (double)sizes[i] * n) <=
                          (5 * sd / p + 1) * sizes[i] + 1,
                      "size %zu: %.0f bytes estimated of %.0f", sizes[i], bytes,
                      (double)sizes[i] * n);
    }
    /* At or above the rate: always, for itself alone. */
    double bytes = 0, blocks = 0;
    ck_assert_int_eq(record(rate, 1000, &bytes, &blocks), 1000);
    ck_assert_int_eq(record(1 << 20, 1000, &bytes, &blocks), 1000);
    ck_assert(bytes == 1000.0 * rate + 1000.0 * (1 << 20));
    ck_assert(blocks == 2000);
    sampler_configure(0, 0);
}
END_TEST

START_TEST(filter_of_recorded_addresses)
{
    sampler_configure(4096, 1);
    char blocks[64][32];
    for (int i = 0; i < 64; i++)
        sampler_hold(blocks[i]);
    for (int i = 0; i < 64; i++)
        ck_assert(sampler_may_hold(blocks[i]));
    for (int i = 0; i < 64; i++)
        sampler_release(blocks[i]);
    long maybe = 0;
    for (int i = 0; i < 64; i++)
        maybe += sampler_may_hold(blocks[i]);
    ck_assert_int_eq(maybe, 0);
    /* A bucket that saturates stays "maybe" for good. */
    for (int i = 0; i < 70000; i++)
        sampler_hold(blocks[0]);
    for (int i = 0; i < 70000; i++)
        sampler_release(blocks[0]);
    ck_assert(sampler_may_hold(blocks[0]));
    sampler_configure(0, 0);
}
END_TEST

Suite *sampler_suite(void)
{
    Suite *s = suite_create("sampler");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, arithmetic_matches_libm);
    tcase_add_test(tc, shared_weight_matches_libm);
    tcase_add_test(tc, without_sampling_every_block_counts_once);
    tcase_add_test(tc, probability_and_weights);
    tcase_add_test(tc, filter_of_recorded_addresses);
    suite_add_tcase(s, tc);
    return s;
}
