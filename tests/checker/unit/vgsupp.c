/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: valgrind suppression files (vgsupp.c) - reading, the
 * wildcards, "...", match-leak-kinds, memcheck's allocation frame.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "replay/verdict.h"
#include "findings/vgsupp.h"

#include <stdio.h>
#include <unistd.h>

static struct view_frame frames[] = {
    { "make_node", "/src/tree.c", 10, "/bin/prog", 0, 0x100, 0 },
    { "build", "/src/tree.c", 20, "/bin/prog", 0, 0x200, 0 },
    { "Foo::bar(int)", "/src/foo.cc", 30, "/lib/libfoo.so.1", 0, 0x300, 0 },
    { "main", "/src/main.c", 40, "/bin/prog", 0, 0x400, 0 },
};
static const struct view_frames stack = { frames, 4, 4 };

static struct vg_supp *loaded[8];
static size_t nloaded;

static void keep(void *arg, const char *name, struct vg_supp *s)
{
    (void)arg;
    (void)name;
    loaded[nloaded++] = s;
}

/* The first Leak entry of TEXT, or NULL; *ERR the load's result. */
static struct vg_supp *load(const char *text, int *err)
{
    char path[] = "/tmp/vgsupp-unit.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    nloaded = 0;
    ck_assert(vgsupp_is_file(path));
    *err = vgsupp_load(path, 0, keep, NULL);
    unlink(path);
    for (size_t i = 1; i < nloaded; i++)
        vgsupp_free(loaded[i]);
    return nloaded ? loaded[0] : NULL;
}

static int matches(const char *body, int cls)
{
    char text[1024];
    int err;
    snprintf(text, sizeof text, "# c\n{\n  n\n  Memcheck:Leak\n%s}\n", body);
    struct vg_supp *s = load(text, &err);
    ck_assert_int_eq(err, 0);
    ck_assert_ptr_nonnull(s);
    int m = vgsupp_match(s, &stack, cls);
    vgsupp_free(s);
    return m;
}

START_TEST(wildcards)
{
    ck_assert(vg_wildcard("make_*", "make_node"));
    ck_assert(vg_wildcard("*", ""));
    ck_assert(vg_wildcard("m?ke*e", "make_node"));
    ck_assert(!vg_wildcard("make", "make_node"));
    ck_assert(!vg_wildcard("?", ""));
    ck_assert(vg_wildcard("*node", "make_node"));
    ck_assert(!vg_wildcard("*nodes", "make_node"));
}
END_TEST

START_TEST(frames_from_the_top)
{
    const int d = CLASS_DEFINITE;
    ck_assert(matches("fun:make_node\nfun:build\n", d));
    ck_assert(matches("fun:make_*\n", d));
    ck_assert(!matches("fun:build\n", d)); /* not the top frame */
    ck_assert(matches("...\nfun:build\n", d));
    ck_assert(matches("fun:make_node\n...\nfun:main\n", d));
    ck_assert(!matches("fun:make_node\n...\nfun:nowhere\n", d));
    ck_assert(matches("obj:/bin/prog\nobj:*\nobj:/lib/libfoo.so*\n", d));
    ck_assert(matches("src:tree.c:10\nsrc:tree.c\n", d));
    ck_assert(!matches("src:tree.c:11\n", d));
    /* memcheck's own first frame, absent from libmtrace's stacks */
    ck_assert(matches("fun:malloc\nfun:make_node\n", d));
    ck_assert(matches("obj:*vgpreload_memcheck*\nfun:make_node\n", d));
    ck_assert(!matches("fun:free\nfun:make_node\n", d));
    /* mangled names */
    ck_assert(matches("fun:make_node\nfun:build\nfun:_ZN3Foo3barEi\n", d));
    /* longer than the stack */
    ck_assert(!matches("fun:make_node\nfun:build\nobj:*\nfun:main\nfun:x\n", d));
}
END_TEST

START_TEST(leak_kinds)
{
    ck_assert(matches("match-leak-kinds: definite,possible\nfun:make_node\n",
                      CLASS_POSSIBLE));
    ck_assert(!matches("match-leak-kinds: definite\nfun:make_node\n",
                       CLASS_REACHABLE));
    ck_assert(matches("fun:make_node\n", CLASS_REACHABLE)); /* no line: all */
    ck_assert(matches("match-leak-kinds: all\nfun:make_node\n", CLASS_INDIRECT));
}
END_TEST

START_TEST(other_kinds_and_errors)
{
    int err;
    /* other kinds are skipped, their aux line included */
    struct vg_supp *s = load("{\n n\n Memcheck:Param\n write(buf)\n fun:x\n}\n"
                             "{\n n\n Helgrind:Race\n fun:x\n}\n",
                             &err);
    ck_assert_int_eq(err, 0);
    ck_assert_ptr_null(s);
    s = load("{\n n\n Memcheck:Leak\n bogus:line\n}\n", &err);
    ck_assert_int_eq(err, -1);
    vgsupp_free(s);
    s = load("{\n n\n Memcheck:Leak\n fun:x\n", &err); /* no "}" */
    ck_assert_int_eq(err, -1);
    vgsupp_free(s);
    s = load("{\n n\n Memcheck:Leak\n match-leak-kinds: sometimes\n}\n", &err);
    ck_assert_int_eq(err, -1);
    vgsupp_free(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("vgsupp");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, wildcards);
    tcase_add_test(tc, frames_from_the_top);
    tcase_add_test(tc, leak_kinds);
    tcase_add_test(tc, other_kinds_and_errors);
    suite_add_tcase(s, tc);
    return s;
}
