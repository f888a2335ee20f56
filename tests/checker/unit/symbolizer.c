/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the symbolizer opens a file once, whatever names it (the
 * command line's relative path, the log's absolute one, a hard link), and
 * keeps different files apart.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "symbolizer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char program[] =
    "__attribute__((noinline)) int leaf(int n) { return n * 3; }\n"
    "int main(int argc, char **argv) { (void)argv; return leaf(argc); }\n";

/* Builds the program as DIR/NAME; 0 on success. */
static int build(const char *dir, const char *name)
{
    char src[PATH_MAX], cmd[3 * PATH_MAX];
    snprintf(src, sizeof src, "%s/p.c", dir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs(program, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -O2 -g -o %s/%s %s 2>/dev/null", dir, name,
             src);
    return system(cmd);
}

START_TEST(one_file_opened_once)
{
    char dir[] = "/tmp/mtc-sym-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    if (build(dir, "a") != 0 || build(dir, "b") != 0)
        return; /* no compiler here */
    char abs_a[PATH_MAX], link_a[PATH_MAX], abs_b[PATH_MAX], cwd[PATH_MAX];
    snprintf(abs_a, sizeof abs_a, "%s/a", dir);
    snprintf(link_a, sizeof link_a, "%s/a-link", dir);
    snprintf(abs_b, sizeof abs_b, "%s/b", dir);
    ck_assert_int_eq(link(abs_a, link_a), 0);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);

    struct objfile *a = sym_open(abs_a);
    ck_assert(sym_usable(a));
    ck_assert_ptr_eq(sym_open("./a"), a);
    ck_assert_ptr_eq(sym_open("a"), a);
    ck_assert_ptr_eq(sym_open(link_a), a);
    struct objfile *b = sym_open(abs_b);
    ck_assert_ptr_ne(b, a); /* the same bytes, another file */
    ck_assert(sym_usable(b));
    ck_assert(!sym_usable(sym_open("./missing")));
    ck_assert_ptr_ne(sym_open("./missing"), a);

    ck_assert_int_eq(chdir(cwd), 0);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("symbolizer");
    TCase *tc = tcase_create("core");
    sym_init();
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_file_opened_once);
    suite_add_tcase(s, tc);
    return s;
}
