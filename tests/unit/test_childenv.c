/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_childenv.c - childenv.h: the environment a program started with
 * children=0 gets: libmtrace's LD_PRELOAD words, MEMLEAK_CONFIG and
 * MALLOC_TRACE removed, everything else kept in order.
 */
#include "unit.h"
#include "base/childenv.h"
#include <string.h>

#define SELF "/opt/lib/libmtrace.so"

/* Strips ENV and compares the result with WANT (both NULL-terminated). */
static void expect_env(char *const *env, const char *const *want)
{
    size_t n = childenv_count(env) + 1;
    size_t len = childenv_preload_size(env) + 1;
    char *out[n + 1];
    char buf[len + 1];
    memset(out, 0x5a, sizeof out);
    memset(buf, 0x5a, sizeof buf);
    childenv_strip(env, SELF, out, buf);
    size_t k = 0;
    for (; want[k]; k++)
        UT_CHECK(out[k] && strcmp(out[k], want[k]) == 0,
                 "entry %zu: '%s', want '%s'", k, out[k] ? out[k] : "NULL",
                 want[k]);
    UT_CHECK(out[k] == NULL, "more entries than %zu: '%s'", k, out[k]);
    UT_CHECK(buf[len] == 0x5a, "wrote past the LD_PRELOAD buffer");
}

START_TEST(drops_own_variables)
{
    char *env[] = { "HOME=/root", "MEMLEAK_CONFIG=mtraceinit,children=0",
                    "LD_PRELOAD=" SELF, "MALLOC_TRACE=/tmp/t.%p", "PATH=/bin",
                    "MEMLEAK_CONFIGX=kept", NULL };
    const char *want[] = { "HOME=/root", "PATH=/bin", "MEMLEAK_CONFIGX=kept",
                           NULL };
    expect_env(env, want);
}
END_TEST

START_TEST(keeps_other_preloads)
{
    char *a[] = { "LD_PRELOAD=libdl.so.2 " SELF " /x/libfoo.so", NULL };
    const char *wa[] = { "LD_PRELOAD=libdl.so.2 /x/libfoo.so", NULL };
    expect_env(a, wa);
    char *b[] = { "LD_PRELOAD=" SELF ":libdl.so.2", NULL };
    const char *wb[] = { "LD_PRELOAD=libdl.so.2", NULL };
    expect_env(b, wb);
    char *c[] = { "LD_PRELOAD=  libmtrace.so  ", "X=1", NULL }; /* by name */
    const char *wc[] = { "X=1", NULL };
    expect_env(c, wc);
    char *d[] = { "LD_PRELOAD=/else/libmtrace.so.1 libmtrace.sox", NULL };
    const char *wd[] = { "LD_PRELOAD=/else/libmtrace.so.1 libmtrace.sox",
                         NULL };
    expect_env(d, wd);
}
END_TEST

START_TEST(last_preload_counts)
{
    char *env[] = { "LD_PRELOAD=/first.so", "A=1",
                    "LD_PRELOAD=" SELF " /second.so", NULL };
    const char *want[] = { "A=1", "LD_PRELOAD=/second.so", NULL };
    expect_env(env, want);
}
END_TEST

START_TEST(empty_and_null)
{
    char *env[] = { NULL };
    const char *want[] = { NULL };
    expect_env(env, want);
    UT_CHECK(childenv_count(NULL) == 0, "NULL environment");
    UT_CHECK(childenv_preload_size(env) == 0, "no LD_PRELOAD");
    UT_CHECK(childenv_is_self("libmtrace.so", 12, SELF), "by file name");
    UT_CHECK(!childenv_is_self("/opt/lib/", 9, SELF), "a directory");
}
END_TEST

Suite *childenv_suite(void)
{
    Suite *s = suite_create("childenv");
    TCase *t = tcase_create("strip");
    tcase_add_test(t, drops_own_variables);
    tcase_add_test(t, keeps_other_preloads);
    tcase_add_test(t, last_preload_counts);
    tcase_add_test(t, empty_and_null);
    suite_add_tcase(s, t);
    return s;
}
