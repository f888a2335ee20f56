/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fmt.c - fmt.h against snprintf over edge and random values.
 */
#include "unit.h"
#include "base/fmt.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef char *(*fmt_fn)(char *, uint64_t);

/* Formats V with FN into a buffer pre-filled with a canary and checks the
 * text, the returned end, and that nothing (not even a NUL) lands past it. */
static void check_one(fmt_fn fn, const char *name, uint64_t v,
                      const char *expected)
{
    char buf[32];
    memset(buf, 0x5a, sizeof buf);
    char *end = fn(buf, v);
    size_t n = strlen(expected);
    UT_CHECK(end == buf + n, "%s(%#" PRIx64 "): wrote %td bytes, want %zu",
             name, v, end - buf, n);
    UT_CHECK(memcmp(buf, expected, n) == 0,
             "%s(%#" PRIx64 "): '%.*s' want '%s'", name, v, (int)n, buf,
             expected);
    for (size_t i = n; i < sizeof buf; i++)
        UT_CHECK(buf[i] == 0x5a, "%s wrote past its end", name);
}

/* fmt_hex16 may write 16 bytes whatever the length: only the digits and
 * the returned end are checked, and that nothing lands past 16 bytes. */
static void check_hex16(uint64_t v, const char *expected)
{
    char buf[32];
    memset(buf, 0x5a, sizeof buf);
    char *end = fmt_hex16(buf, v);
    size_t n = strlen(expected);
    UT_CHECK(end == buf + n, "fmt_hex16(%#" PRIx64 "): %td digits, want %zu",
             v, end - buf, n);
    UT_CHECK(memcmp(buf, expected, n) == 0,
             "fmt_hex16(%#" PRIx64 "): '%.*s' want '%s'", v, (int)n, buf,
             expected);
    for (size_t i = 16; i < sizeof buf; i++)
        UT_CHECK(buf[i] == 0x5a, "fmt_hex16 wrote past 16 bytes");
}

static void check_all(uint64_t v)
{
    char want[64];
    snprintf(want, sizeof want, "%" PRIx64, v);
    check_one(fmt_hex, "fmt_hex", v, want);
    check_hex16(v, want);
    snprintf(want, sizeof want, "%#" PRIx64, v);
    check_one(fmt_size, "fmt_size", v, want);
    snprintf(want, sizeof want, "%" PRIu64, v);
    check_one(fmt_dec, "fmt_dec", v, want);
    if (v != 0) { /* %p is only defined here for non-NULL pointers */
        snprintf(want, sizeof want, "%p", (void *)(uintptr_t)v);
        check_one(fmt_ptr, "fmt_ptr", v, want);
    }
}

START_TEST(edge_values)
{
    static const uint64_t fixed[] = {
        0,
        1,
        9,
        10,
        11,
        15,
        16,
        17,
        99,
        100,
        255,
        256,
        4095,
        4096,
        UINT32_MAX - 1,
        UINT32_MAX,
        (uint64_t)UINT32_MAX + 1,
        INT64_MAX,
        (uint64_t)INT64_MAX + 1,
        UINT64_MAX - 1,
        UINT64_MAX,
        10000000000000000000ull,
        9999999999999999999ull,
        0x7ffff7dd1000ull,
        0x555555554000ull,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_all(fixed[i]);
    /* Every digit-count boundary in both bases. */
    for (int k = 0; k < 64; k++) {
        uint64_t p = (uint64_t)1 << k;
        check_all(p - 1);
        check_all(p);
        check_all(p + 1);
    }
    uint64_t ten = 1;
    for (int k = 0; k < 20; k++, ten *= 10) {
        check_all(ten - 1);
        check_all(ten);
        check_all(ten + 1);
    }
}
END_TEST

START_TEST(random_values)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 200000; i++) {
        uint64_t v = ut_rand(&seed);
        /* Spread over all magnitudes, not just 64-bit-long values. */
        check_all(v >> (ut_rand(&seed) % 64));
    }
}
END_TEST

START_TEST(zero_forms)
{
    check_one(fmt_hex, "fmt_hex", 0, "0");
    check_one(fmt_size, "fmt_size", 0, "0");
    check_one(fmt_dec, "fmt_dec", 0, "0");
    /* fmt.h promises at most 20 bytes: the longest outputs. */
    check_one(fmt_dec, "fmt_dec", UINT64_MAX, "18446744073709551615");
    check_one(fmt_ptr, "fmt_ptr", UINT64_MAX, "0xffffffffffffffff");
}
END_TEST

Suite *fmt_suite(void)
{
    Suite *s = suite_create("fmt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, edge_values);
    tcase_add_test(tc, random_values);
    tcase_add_test(tc, zero_forms);
    suite_add_tcase(s, tc);
    return s;
}
