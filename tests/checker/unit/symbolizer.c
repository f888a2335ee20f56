/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the symbolizer opens a file once, whatever names it (the
 * command line's relative path, the log's absolute one, a hard link), and
 * keeps different files apart; its addr2line answers are binutils'.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "symbolize/symbolizer.h"

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

/* The classic report's caller column for a library whose DWARF is in a
 * compressed debug file of its own (glibc's, from libc6-dbg) comes from
 * the image the stack report reads (symbolizer.c: image_line).  It must
 * say what binutils' addr2line says of the library itself, also where the
 * DWARF has no line (":?", "??:?"): every 97th byte of libc's .text, one
 * addr2line run reading them from a file. */
#define STRIDE 97

/* LIB's .text as objdump -h shows it; 0 when it cannot tell. */
static int text_section(const char *lib, unsigned long *vma,
                        unsigned long *size)
{
    char cmd[PATH_MAX + 32], line[512], name[64];
    unsigned long sz, addr;
    snprintf(cmd, sizeof cmd, "objdump -h %s 2>/dev/null", lib);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    *size = 0;
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "%*d %63s %lx %lx", name, &sz, &addr) == 3 &&
            strcmp(name, ".text") == 0) {
            *vma = addr;
            *size = sz;
        }
    pclose(p);
    return *size > 0;
}

START_TEST(addr2line_as_binutils)
{
    const char *lib = "/lib/x86_64-linux-gnu/libc.so.6";
    unsigned long vma, size;
    if (access("/usr/lib/debug/.build-id", R_OK) != 0 ||
        !text_section(lib, &vma, &size)) {
        fprintf(stderr, "addr2line_as_binutils: no libc debug file or "
                        "objdump here, skipped\n");
        return;
    }
    char addrs[] = "/tmp/mtc-a2l-XXXXXX", cmd[2 * PATH_MAX], want[PATH_MAX];
    int fd = mkstemp(addrs);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (unsigned long a = vma; a < vma + size; a += STRIDE)
        fprintf(f, "%#lx\n", a);
    fclose(f);
    snprintf(cmd, sizeof cmd, "addr2line -e %s <%s", lib, addrs);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    struct objfile *o = sym_open(lib);
    ck_assert(sym_usable(o));
    int n = 0, with_line = 0, without = 0;
    for (unsigned long a = vma; a < vma + size; a += STRIDE, n++) {
        ck_assert_ptr_nonnull(fgets(want, sizeof want, p));
        want[strcspn(want, "\n")] = '\0';
        char *got = sym_addr2line(o, a);
        ck_assert_msg(got && strcmp(got, want) == 0,
                      "%#lx: addr2line says '%s', we say '%s'", a, want,
                      got ? got : "(null)");
        if (strstr(want, ":?") || strstr(want, "??"))
            without++;
        else
            with_line++;
        free(got);
    }
    pclose(p);
    unlink(addrs);
    /* Both kinds were compared: the DWARF was there to be read. */
    ck_assert_int_gt(with_line, n / 2);
    ck_assert_int_gt(without, 0);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("symbolizer");
    TCase *tc = tcase_create("core");
    sym_init();
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_file_opened_once);
    tcase_add_test(tc, addr2line_as_binutils);
    suite_add_tcase(s, tc);
    return s;
}
