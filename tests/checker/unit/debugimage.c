/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: decompressed debug images (debugimage.c) give the stack
 * report the frames libbfd gives from the file itself.  The same program
 * is built twice, with its DWARF compressed (-gz=zlib) and not; every
 * return address in its text is looked up in both, function, file, line
 * and inline chain compared.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "symbolize/debugimage.h"
#include "symbolize/symbolizer.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* TEXT into a new file named from the template SRC. */
static void write_program(char *src, const char *text)
{
    int fd = mkstemps(src, 2);
    ck_assert_int_ge(fd, 0);
    ssize_t n = (ssize_t)strlen(text);
    ck_assert_int_eq(write(fd, text, (size_t)n), n);
    close(fd);
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

START_TEST(image_gives_the_same_frames)
{
    char src[] = "/tmp/mtc-dbgimg-XXXXXX.c";
    write_program(src, program);
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

/* The program and 400 functions more: debug sections of tens of KB. */
static char *big_program(void)
{
    size_t cap = sizeof program + 400 * 64, len = sizeof program - 1;
    char *text = malloc(cap);
    memcpy(text, program, len + 1);
    for (int i = 0; i < 400; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "int f%d(int x) { return x * %d + %d; }\n", i,
                                i + 3, i);
    return text;
}

/* The image read whole (each section decompressed straight into the
 * buffer) and read in small pieces that cut sections (their first
 * kilobytes decompressed alone, the rest once into a cache) give the same
 * bytes; its header points at a table whose sections are no longer
 * compressed. */
START_TEST(pieces_read_as_the_whole)
{
    char src[] = "/tmp/mtc-dbgimg-XXXXXX.c";
    char *text = big_program();
    write_program(src, text);
    free(text);
    char packed[64];
    snprintf(packed, sizeof packed, "%s.gz", src);
    int built = build(src, packed, "-gz=zlib");
    unlink(src);
    if (built != 0)
        return; /* no compiler with -gz here */
    struct debug_image img;
    ck_assert_int_eq(debug_image_build(packed, &img), 0);
    ck_assert_uint_gt(img.nparts, 0);
    uint64_t largest = 0;
    for (unsigned k = 0; k < img.nparts; k++)
        largest = img.parts[k].size > largest ? img.parts[k].size : largest;
    ck_assert_uint_gt(largest, 16384); /* reads past the first kilobytes */
    unsigned char *whole = malloc(img.size + 100), *pieces = malloc(img.size);
    ck_assert_int_eq(debug_image_read(&img, whole, img.size + 100, 0),
                     (long)img.size); /* short at the end */
    for (size_t off = 0; off < img.size; off += 7) {
        size_t n = img.size - off < 7 ? img.size - off : 7;
        ck_assert_int_eq(debug_image_read(&img, pieces + off, n, off), (long)n);
    }
    ck_assert_int_eq(memcmp(whole, pieces, img.size), 0);
    ck_assert_int_eq(debug_image_read(&img, pieces, 10, img.size), 0);
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)whole;
    ck_assert_uint_eq(eh->e_shoff, img.shoff);
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(whole + eh->e_shoff);
    unsigned plain_debug = 0;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        for (unsigned k = 0; k < img.nparts; k++)
            if (sh[i].sh_offset == img.parts[k].off) {
                ck_assert(!(sh[i].sh_flags & SHF_COMPRESSED));
                ck_assert_uint_eq(sh[i].sh_size, img.parts[k].size);
                plain_debug++;
            }
    ck_assert_uint_eq(plain_debug, img.nparts);
    free(whole);
    free(pieces);
    debug_image_free(&img);
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
    tcase_add_test(tc, pieces_read_as_the_whole);
    suite_add_tcase(s, tc);
    return s;
}
