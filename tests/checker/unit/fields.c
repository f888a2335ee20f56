/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: tokenizer and number parsers (fields.c).
 * Expected values of perl_hex are what perl 5.36 prints for
 * printf "%#018x", hex($s) (checked by hand with perl -e).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "read/fields.h"

#include <stdio.h>

START_TEST(split_basic)
{
    struct slice f[8];
    const char *line = "  @ ./t:[0x11b1]\t+ 0x55 0x64 \r";
    size_t n = split_fields(line, strlen(line), f, 8);
    ck_assert_uint_eq(n, 5);
    ck_assert(f[0].n == 1 && f[0].p[0] == '@');
    ck_assert(f[1].n == 12 && memcmp(f[1].p, "./t:[0x11b1]", 12) == 0);
    ck_assert(f[4].n == 4 && memcmp(f[4].p, "0x64", 4) == 0);
    ck_assert_uint_eq(split_fields(line, strlen(line), f, 2), 2);
    ck_assert_uint_eq(split_fields("", 0, f, 8), 0);
    ck_assert_uint_eq(split_fields(" \t\v\f\r\n", 6, f, 8), 0);
}
END_TEST

START_TEST(split_is_perl_whitespace)
{
    /* Perl 5.36 split ' ' separates on exactly these bytes. */
    for (int c = 0; c < 256; c++) {
        char line[3] = { 'a', (char)c, 'b' };
        struct slice f[4];
        size_t n = split_fields(line, 3, f, 4);
        int ws = c == 9 || c == 10 || c == 11 || c == 12 || c == 13 || c == 32;
        ck_assert_uint_eq(n, ws ? 2 : 1);
    }
}
END_TEST

/* split_line must give the fields of the text before the first newline,
 * as split_fields does, and find that newline. */
START_TEST(split_line_matches_split_fields)
{
    static const char alphabet[] = "ab0x \t\n\v\f\r\0\x80\xff:[]";
    unsigned seed = (unsigned)ut_seed(42);
    char buf[400];

    for (int iter = 0; iter < 20000; iter++) {
        size_t len = rnd(&seed) % 300;
        for (size_t i = 0; i < len; i++) {
            unsigned r = rnd(&seed) % 100;
            buf[i] = r < 70 ? 'a' + (char)(r % 26)
                            : alphabet[r % (sizeof alphabet - 1)];
        }
        size_t max = 1 + rnd(&seed) % 8;
        const char *nl, *want_nl = memchr(buf, '\n', len);
        size_t line_len = want_nl ? (size_t)(want_nl - buf) : len;
        struct slice a[8], b[8];
        size_t na = split_fields(buf, line_len, a, max);
        size_t nb = split_line(buf, buf + len, b, max, &nl);
        UT_CHECK(na == nb, "iteration %d: %zu fields, split_line %zu", iter,
                 na, nb);
        UT_CHECK(nl == want_nl, "iteration %d: newline", iter);
        for (size_t i = 0; i < na; i++)
            UT_CHECK(a[i].p == b[i].p && a[i].n == b[i].n,
                     "iteration %d: field %zu", iter, i);
    }
}
END_TEST

START_TEST(perl_hex_values)
{
    static const struct {
        const char *in;
        uint64_t want;
    } cases[] = {
        { "0x1f", 0x1f },
        { "0X1F", 0x1f },
        { "x1f", 0x1f },
        { "X1f", 0x1f },
        { "1_2", 0x12 },
        { "0x_1", 1 },
        { "0x1__2", 1 },
        { "_1", 1 },
        { "1_", 1 },
        { "0x", 0 },
        { "", 0 },
        { "0xg1", 0 },
        { "1g", 1 },
        { "0b1", 0xb1 },
        { "0x1ffffffffffffffff", UINT64_MAX },
        { "0xffffffffffffffff", UINT64_MAX },
        { "0x10000000000000000", UINT64_MAX },
        { " 12", 0 },
        { "0x1_", 1 },
        { "0xx1", 0 },
        { "00x1", 0 },
        { "0x55c813b5c4a0", 0x55c813b5c4a0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(perl_hex(S(cases[i].in)) == cases[i].want, "hex(%s)",
                      cases[i].in);
    ck_assert(perl_hex((struct slice){ "\0"
                                       "1",
                                       2 }) == 0);
    ck_assert(perl_hex((struct slice){ "1\0"
                                       "1",
                                       3 }) == 1);
}
END_TEST

/* addr2line reads addresses with strtoul(s, NULL, 16). */
START_TEST(strtou64_matches_strtoul)
{
    static const char alphabet[] = "0123456789abcdefABCDEFxX+- _g";
    unsigned seed = (unsigned)ut_seed(7);
    char buf[40];
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = rnd(&seed) % 24;
        for (size_t i = 0; i < len; i++)
            buf[i] = alphabet[rnd(&seed) % (sizeof alphabet - 1)];
        buf[len] = '\0';
        UT_CHECK(c_strtou64_hex((struct slice){ buf, len }) ==
                     strtoul(buf, NULL, 16),
                 "strtoul(%s)", buf);
    }
}
END_TEST

START_TEST(strict_numbers)
{
    uint64_t v;
    ck_assert_int_eq(parse_dec_u64(S("123"), &v), 0);
    ck_assert_uint_eq(v, 123);
    ck_assert_int_eq(parse_dec_u64(S(""), &v), -1);
    ck_assert_int_eq(parse_dec_u64(S("12a"), &v), -1);
    ck_assert_int_eq(parse_dec_u64(S("99999999999999999999"), &v), -1);
    ck_assert_int_eq(parse_0xhex_u64(S("0x1aF"), &v), 0);
    ck_assert_uint_eq(v, 0x1af);
    ck_assert_int_eq(parse_0xhex_u64(S("0x"), &v), -1);
    ck_assert_int_eq(parse_0xhex_u64(S("1a"), &v), -1);
    ck_assert_int_eq(parse_0xhex_u64(S("0x10000000000000000"), &v), -1);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("fields");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, split_basic);
    tcase_add_test(tc, split_is_perl_whitespace);
    tcase_add_test(tc, split_line_matches_split_fields);
    tcase_add_test(tc, perl_hex_values);
    tcase_add_test(tc, strtou64_matches_strtoul);
    tcase_add_test(tc, strict_numbers);
    suite_add_tcase(s, tc);
    return s;
}
