/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the Perl checker's location() patterns (location.c) and the
 * parsing of ld.so's list (ldtrace.c).  Expected captures are what perl
 * 5.36 gives for the script's regexes on the same strings.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "symbolize/ldtrace.h"
#include "symbolize/location.h"

static int eq(struct slice s, const char *want)
{
    return s.n == strlen(want) && memcmp(s.p, want, s.n) == 0;
}

enum form { NONE, F1, F2, F3 };

struct case_ {
    const char *in;
    enum form form;
    const char *a,
        *b; /* F1: addr, fct (NULL = undef); F2: prog, addr; F3: addr */
};

static const struct case_ cases[] = {
    { "./t:[0x11b1]", F2, "./t", "0x11b1" },
    { "/lib/libc.so.6:(__strdup+1a)[0x9e9aa]", F2, "/lib/libc.so.6",
      "0x9e9aa" },
    { "[0x1234]", F3, "0x1234", NULL },
    { "[0xabc]:f", F1, "0xabc", "f" },
    { "foo:bar:[0x99]:xyz", F1, "0x99", "z" },
    { "[0x11c8]:", F1, "0x11c8", NULL },
    { "a[0xb]c:[0x11c4]", F2, "a[0xb]c", "0x11c4" },
    { "[0x[0x11c6]", F3, "0x11c6", NULL },
    { "x:[0x11c7]junk", NONE, NULL, NULL },
    { "]:[0x1]]", NONE, NULL, NULL },
    { ":[0x5]", F2, "", "0x5" },
    { "a:b[0x1]:c[0x2]", F1, "0x1", "]" },
    { "p:[0x1]:q:[0x2]", F1, "0x1", "]" },
    { "weird", NONE, NULL, NULL },
    { "x:[0x]", F2, "x", "0x" },
};

START_TEST(patterns)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct case_ *c = &cases[i];
        struct slice s = S(c->in), x, y;
        enum form got = NONE;
        if (loc_match_form1(s, &x, &y))
            got = F1;
        else if (loc_match_form2(s, &x, &y))
            got = F2;
        else if (loc_match_form3(s, &x))
            got = F3;
        ck_assert_msg(got == c->form, "%s: form %d, want %d", c->in, got,
                      c->form);
        if (got == F1) {
            ck_assert_msg(eq(x, c->a), "%s: addr", c->in);
            ck_assert_msg(c->b ? eq(y, c->b) : y.p == NULL, "%s: fct", c->in);
        } else if (got == F2) {
            ck_assert_msg(eq(x, c->a) && eq(y, c->b), "%s: prog/addr", c->in);
        } else if (got == F3) {
            ck_assert_msg(eq(x, c->a), "%s: addr", c->in);
        }
    }
}
END_TEST

/* Without a BINARY, location() never runs addr2line: the raw address, or
 * "FCT @ ADDR", cached by the address text alone across forms. */
START_TEST(locate_without_binary)
{
    struct locator l;
    locator_init(&l, NULL);
    ck_assert(eq(locate(&l, S("./t:[0x11b1]")), "0x11b1"));
    ck_assert(eq(locate(&l, S("[0xabc]:f")), "f @ 0xabc"));
    ck_assert(eq(locate(&l, S("[0xabc]")), "f @ 0xabc")); /* cached */
    ck_assert(eq(locate(&l, S("/lib/x.so:[0xabc]")), "f @ 0xabc"));
    ck_assert(eq(locate(&l, S("[0x11c8]:")), " @ 0x11c8"));
    ck_assert(eq(locate(&l, S("weird")), "weird"));
    ck_assert(eq(locate(&l, S("")), ""));
    locator_destroy(&l);
}
END_TEST

START_TEST(ld_list)
{
    struct strmap m;
    strmap_init(&m);
    ldtrace_parse_line(S("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 "
                         "(0x00007f35a3cc8000)"),
                       &m);
    ldtrace_parse_line(S("\t (0x0000555555554000)"), &m);
    ldtrace_parse_line(S("a => b c (0x1) (0x2)"), &m);
    ldtrace_parse_line(S("x => y (0xABC)"), &m);
    ldtrace_parse_line(S("x => => y z [0x12]"), &m);
    ldtrace_parse_line(S("q => r (0x)"), &m);
    ldtrace_parse_line(S("a => b(0x1)"), &m);
    ck_assert_uint_eq(m.count, 4);
    void **v = strmap_get(&m, S("/lib/x86_64-linux-gnu/libc.so.6"));
    ck_assert(v && *(uint64_t *)*v == 0x7f35a3cc8000);
    v = strmap_get(&m, S("b c (0x1)"));
    ck_assert(v && *(uint64_t *)*v == 2);
    v = strmap_get(&m, S("y z"));
    ck_assert(v && *(uint64_t *)*v == 0x12);
    v = strmap_get(&m, S("r"));
    ck_assert(v && *(uint64_t *)*v == 0);
    strmap_each(&m, free);
    strmap_destroy(&m);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("location");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, patterns);
    tcase_add_test(tc, locate_without_binary);
    tcase_add_test(tc, ld_list);
    suite_add_tcase(s, tc);
    return s;
}
