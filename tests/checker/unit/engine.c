/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the replay engine (engine.c) and its report, with expected
 * text built from the Perl script's printf formats (the parallel replay
 * is checked against it in replay.c).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "output/outputs.h"
#include "replay/engine.h"
#include "symbolize/symbolizer.h"

#include <stdio.h>
#include <unistd.h>

/* Run LOG through a fresh engine; returns the malloc'd report text. */
static char *run_text(const char *log, int *leaks)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    struct options opt = { .quiet = 1, .log = "log" };
    struct outputs x;
    struct engine e;

    engine_init(&e, NULL);
    outputs_begin(&x, &opt, &e, out, -1);
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        engine_line(&e, p, len);
        p += len + (nl != NULL);
    }
    outputs_release(&x, e.is_trace || e.ext.extended);
    ck_assert_int_eq(outputs_end(&x, &e, NULL, leaks), 0);
    engine_destroy(&e);
    fclose(out);
    return text;
}

START_TEST(no_leaks)
{
    int leaks;
    char *t = run_text(
        "= Start\n@ ./t:[0x1] + 0x10 0x20\n@ ./t:[0x2] - 0x10\n= End\n",
        &leaks);
    ck_assert_str_eq(t, "No memory leaks.\n");
    ck_assert_int_eq(leaks, 0);
    free(t);
}
END_TEST

START_TEST(warnings_and_leaks)
{
    int leaks;
    char *t = run_text("= Start\n"
                       "+ 0x10 0x20\n"
                       "+ 0x10 0x30\n"      /* Alloc 3 duplicate */
                       "- 0x99\n"           /* Free 4 never alloc'd */
                       "@ [0x5]:g < 0x98\n" /* Realloc 5 never alloc'd */
                       "> 0x10 0x40\n"      /* Realloc 6 duplicate */
                       "+ 10 0x1\n"         /* no 0x: not recorded */
                       "> 20 0x2\n"         /* recorded anyway */
                       "#m 1 0x0 - /x\n"    /* counted, ignored */
                       "@ ./t:[0x11] + 0x9 0x3\n",
                       &leaks);
    ck_assert_str_eq(
        t, "+ 0x0000000000000010 Alloc 3 duplicate:  \n"
           "- 0x0000000000000099 Free 4 was never alloc'd \n"
           "- 0x0000000000000098 Realloc 5 was never alloc'd g @ 0x5\n"
           "+ 0x0000000000000010 Realloc 6 duplicate: 0x00000020  \n"
           "\nMemory not freed:\n-----------------\n"
           "           Address     Size     Caller\n"
           "0x0000000000000010     0x20  at \n"
           "0x0000000000000009      0x3  at 0x11\n"
           "0x0000000000000020      0x2  at \n");
    ck_assert_int_eq(leaks, 1);
    free(t);
}
END_TEST

START_TEST(extended_groups)
{
    int leaks;
    char *t = run_text(
        "= Start\n#v 1 pid=1\n#f - 0x1234 0x4 jit(int)\n#s 1 -:0x1234\n#s 2 "
        "-:0x99\n"
        "+ 0x1 0x10 s1\n+ 0x2 0x10 s1\n+ 0x3 0x30 s2\n+ 0x4 0x5 s77\n",
        &leaks);
    const char *groups = strstr(
        t, "\nLeaks grouped by allocation stack, largest first:\n");
    ck_assert_ptr_nonnull(groups);
    const char *g2 = strstr(
        groups,
        "48 bytes in 1 blocks allocated from:\n    #0 ?? at ??:? (0x99)\n");
    const char *g1 = strstr(groups, "32 bytes in 2 blocks allocated from:\n    "
                                    "#0 jit(int) at ??:? (0x1234)\n");
    const char *g0 = strstr(
        groups,
        "5 bytes in 1 blocks allocated from:\n    (no stack recorded)\n");
    ck_assert(g2 && g1 && g0 && g2 < g1 && g1 < g0);
    free(t);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("core");
    sym_init();
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, no_leaks);
    tcase_add_test(tc, warnings_and_leaks);
    tcase_add_test(tc, extended_groups);
    suite_add_tcase(s, tc);
    return s;
}
