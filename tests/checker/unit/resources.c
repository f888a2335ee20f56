/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the "#r" resource records (replay/resources.c,
 * findings/resfind.c, output/restext.c) and the resident memory of the
 * "#t" records (replay/rss.c, output/rssout.c), read through the engine
 * into the text report.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "output/outputs.h"
#include "replay/engine.h"

#include <stdio.h>

#define HEAD "= Start\n#v 1 pid=1\n"

/* LOG through a fresh engine: the text report (malloc'd); *FAILING the
 * exit status's verdict, *BAD the malformed "#r" records. */
static char *run_text(const char *log, int *failing, uint64_t *bad)
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
    ck_assert_int_eq(outputs_end(&x, &e, NULL, failing), 0);
    if (bad)
        *bad = e.res.bad_records;
    engine_destroy(&e);
    fclose(out);
    return text;
}

START_TEST(held_at_the_end)
{
    int failing;
    char *t = run_text(HEAD "#r + lock 0x10 s1\n"
                            "#r + fd 0x5 s1\n"
                            "#r + fd 0x6 s1\n"
                            "#r - fd 0x6 s1\n"
                            "#e exit\n",
                       &failing, NULL);
    ck_assert_ptr_nonnull(strstr(t, "\nResources not released, by kind and "
                                    "acquiring stack:\n"
                                    "\n1 fd not released (5) acquired from:\n"
                                    "    (no stack recorded)\n"
                                    "\n1 lock not released (16) acquired "
                                    "from:\n"));
    ck_assert_ptr_null(strstr(t, "never acquired"));
    ck_assert_int_eq(failing, 1);
    free(t);
}
END_TEST

START_TEST(all_released)
{
    int failing;
    char *t = run_text(HEAD "#r + lock 0x10 s1\n"
                            "#r - lock 0x10 s1\n"
                            "#r + lock 0x10 s2\n"
                            "#r - lock 0x10 s2\n"
                            "#e exit\n",
                       &failing, NULL);
    ck_assert_ptr_nonnull(strstr(t, "\nAll resources were released.\n"));
    ck_assert_ptr_null(strstr(t, "not released ("));
    ck_assert_int_eq(failing, 0);
    free(t);
}
END_TEST

/* glibc's "Free N was never alloc'd", for resources; an acquire of a
 * resource held keeps the first. */
START_TEST(warnings)
{
    int failing;
    char *t = run_text(HEAD "#r - lock 0x42 s1\n"
                            "#r + conn 0x1000000 s1\n"
                            "#r + conn 0x1000000 s1\n"
                            "#e exit\n",
                       &failing, NULL);
    ck_assert_ptr_nonnull(strstr(t, "\n- lock 66 Release 3 was never "
                                    "acquired:\n"));
    ck_assert_ptr_nonnull(strstr(t, "\n+ conn 0x1000000 Acquire 5 duplicate "
                                    "(already held), at:\n"));
    ck_assert_ptr_nonnull(strstr(t, "\n1 conn not released (0x1000000)"));
    free(t);
}
END_TEST

/* An image replaced by exec passed its descriptors on; the rest went
 * with it. */
START_TEST(exec_lists_descriptors_only)
{
    int failing;
    char *t = run_text(HEAD "#r + lock 0x10 s1\n"
                            "#r + fd 0x7 s1\n"
                            "#e exec\n",
                       &failing, NULL);
    ck_assert_ptr_nonnull(strstr(t, "\n1 fd not released (7)"));
    ck_assert_ptr_null(strstr(t, "lock not released"));
    free(t);
}
END_TEST

/* Malformed records change nothing; a classic log's "#r" is not read. */
START_TEST(malformed)
{
    int failing;
    uint64_t bad;
    char *t = run_text(HEAD "#r + lock\n"
                            "#r * lock 0x10 s1\n"
                            "#r + lock 16 s1\n"
                            "#r + " /* 65 bytes of kind */
                            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                            "aaaaaaaaaaaaaaaaa 0x1 s1\n"
                            "#e exit\n",
                       &failing, &bad);
    ck_assert_uint_eq(bad, 4);
    ck_assert_ptr_null(strstr(t, "Resources"));
    ck_assert_int_eq(failing, 0);
    free(t);
    t = run_text("= Start\n#r + lock 0x10 s1\n= End\n", &failing, &bad);
    ck_assert_ptr_null(strstr(t, "Resources"));
    free(t);
}
END_TEST

START_TEST(peak_rss)
{
    int failing;
    char *t = run_text(HEAD "#t 100 rss-anon=1000 rss-file=2000\n"
                            "#t 200 rss-anon=500 rss-file=600\n"
                            "#t 300\n"
                            "#t 400 rss-anon=9\n"
                            "#e exit\n",
                       &failing, NULL);
    ck_assert_ptr_nonnull(strstr(t, "\nPeak resident memory (RSS): 3,000 "
                                    "bytes (1,000 anonymous, 2,000 "
                                    "file-backed or shared), the largest of "
                                    "2 samples\n"));
    free(t);
    t = run_text(HEAD "#t 100\n#e exit\n", &failing, NULL);
    ck_assert_ptr_null(strstr(t, "resident"));
    free(t);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("resources");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, held_at_the_end);
    tcase_add_test(tc, all_released);
    tcase_add_test(tc, warnings);
    tcase_add_test(tc, exec_lists_descriptors_only);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, peak_rss);
    suite_add_tcase(s, tc);
    return s;
}
