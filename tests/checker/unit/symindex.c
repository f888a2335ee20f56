/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the sorted symbol index (symindex.c) answers as libbfd's
 * bfd_find_nearest_line does on images without debug information: on
 * every byte of build/symcases.so (progs/symcases.S: nested functions,
 * symbols sharing an address, IFUNC, typeless and annobin-like symbols,
 * two STT_FILE symbols) and on a sample of cc1's 28,900 dynamic symbols.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define PACKAGE "mtrace-check-tests" /* bfd.h insists on a config.h */
#define PACKAGE_VERSION "1"
#include <bfd.h>

#include "unit.h"
#include "symbolize/symindex.h"

#include <stdio.h>

#define SYMCASES "build/symcases.so"
#define SYMCASES_G "build/symcases-g.so"

struct image {
    bfd *abfd;
    asymbol **syms;
};

/* The static symbols, else the dynamic ones, as addr2line reads them. */
static asymbol **read_syms(bfd *abfd)
{
    long size = bfd_get_symtab_upper_bound(abfd);
    int dynamic = size <= (long)sizeof(asymbol *);
    if (dynamic)
        size = bfd_get_dynamic_symtab_upper_bound(abfd);
    ck_assert_int_gt(size, 0);
    asymbol **syms = xmalloc((size_t)size);
    long n = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, syms)
                     : bfd_canonicalize_symtab(abfd, syms);
    ck_assert_int_gt(n, 0);
    return syms;
}

static int open_image(const char *path, struct image *im)
{
    bfd_init();
    im->abfd = bfd_openr(path, NULL);
    if (!im->abfd)
        return 0;
    if (!bfd_check_format(im->abfd, bfd_object)) {
        bfd_close(im->abfd);
        return 0;
    }
    im->syms = read_syms(im->abfd);
    return 1;
}

static void close_image(struct image *im)
{
    free(im->syms);
    bfd_close(im->abfd);
}

/* libbfd's answer for OFF in SEC from one pass over the symbols, as
 * addr2line gives it for that address alone: libbfd keeps its last
 * function and answers it again for an address inside it without a pass,
 * so a lookup in another section (OTHER) comes first. */
static int libbfd_answer(struct image *im, asection *sec, asection *other,
                         bfd_vma off, const char **func, const char **file)
{
    const char *f, *fn;
    unsigned line;
    bfd_find_nearest_line(im->abfd, other, im->syms, 0, &f, &fn, &line);
    *func = *file = NULL;
    return bfd_find_nearest_line(im->abfd, sec, im->syms, off, file, func,
                                 &line) &&
           *func;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The index's answer and libbfd's for OFF in SEC are the same. */
static void check_offset(struct image *im, const struct symindex *ix,
                         asection *sec, asection *other, bfd_vma off)
{
    const char *want_fn, *want_file, *fn = NULL, *file = NULL;
    int want = libbfd_answer(im, sec, other, off, &want_fn, &want_file);
    int got = symindex_find(ix, sec, off, &fn, &file);
    UT_CHECK(got == want, "%s+%#lx: found %d, libbfd %d", sec->name,
             (unsigned long)off, got, want);
    if (want) {
        UT_CHECK(same_text(fn, want_fn), "%s+%#lx: %s, libbfd %s", sec->name,
                 (unsigned long)off, fn, want_fn);
        UT_CHECK(same_text(file, want_file), "%s+%#lx: file %s, libbfd %s",
                 sec->name, (unsigned long)off, file ? file : "(none)",
                 want_file ? want_file : "(none)");
    }
}

/* Another allocated section than SEC, for libbfd_answer(). */
static asection *other_section(bfd *abfd, const asection *sec)
{
    for (asection *s = abfd->sections; s; s = s->next)
        if (s != sec && (bfd_section_flags(s) & SEC_ALLOC))
            return s;
    ck_abort_msg("no second allocated section");
    return NULL;
}

START_TEST(every_byte_of_symcases)
{
    struct image im;
    ck_assert_msg(open_image(SYMCASES, &im), "cannot open " SYMCASES);
    ck_assert(symindex_applies(im.abfd));
    struct symindex *ix = symindex_build(im.syms);
    unsigned checked = 0;
    for (asection *sec = im.abfd->sections; sec; sec = sec->next) {
        if (!(bfd_section_flags(sec) & SEC_ALLOC))
            continue;
        asection *other = other_section(im.abfd, sec);
        for (bfd_vma off = 0; off <= bfd_section_size(sec); off++, checked++)
            check_offset(&im, ix, sec, other, off);
    }
    ck_assert_uint_gt(checked, 300);
    symindex_free(ix);
    close_image(&im);
}
END_TEST

/* The index's function for OFF in TEXT (NULL: none). */
static const char *find_at(const struct symindex *ix, asection *text,
                           bfd_vma off, const char **file)
{
    const char *fn = NULL;
    *file = NULL;
    return symindex_find(ix, text, off, &fn, file) ? fn : NULL;
}

/* The answers, checked by hand against symcases.S. */
START_TEST(hand_checked_answers)
{
    struct image im;
    ck_assert_msg(open_image(SYMCASES, &im), "cannot open " SYMCASES);
    struct symindex *ix = symindex_build(im.syms);
    asection *text = bfd_get_section_by_name(im.abfd, ".text");
    ck_assert_ptr_nonnull(text);
    const char *names[] = { "plain",    "outer",      "early_inner",
                            "tie_func", "tie_notype", "big",
                            "small_a",  "small_b",    "static_fn" };
    bfd_vma at[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        at[i] = (bfd_vma)-1;
        for (asymbol **p = im.syms; *p; p++)
            if (strcmp(bfd_asymbol_name(*p), names[i]) == 0)
                at[i] = (*p)->value;
        ck_assert_msg(at[i] != (bfd_vma)-1, "no symbol %s", names[i]);
    }
    struct {
        size_t sym;
        bfd_vma delta;
        const char *want, *file;
    } cases[] = {
        { 0, 0, "plain", NULL },      /* a global: no file */
        { 0, 20, "plain", NULL },     /* past its end, in the gap */
        { 1, 8, "outer", "part1.c" }, /* a local: its file */
        { 2, 0, "early_inner", "part1.c" },
        { 2, 8, "early_inner", "part1.c" }, /* past its end, in outer */
        { 3, 0, "tie_notype", NULL },       /* the longest at an address */
        { 3, 40, "tie_notype", NULL },
        { 3, 48, "tie_notype", NULL }, /* annobin_like is no function */
        { 5, 0, "big", NULL },         /* the longest again */
        { 7, 0, "small_b", NULL },
        { 8, 4, "static_fn", "part2.c" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *file;
        const char *fn = find_at(ix, text, at[cases[i].sym] + cases[i].delta,
                                 &file);
        ck_assert_msg(same_text(fn, cases[i].want), "case %zu: %s, want %s", i,
                      fn, cases[i].want);
        ck_assert_msg(same_text(file, cases[i].file), "case %zu: file %s", i,
                      file ? file : "(none)");
    }
    symindex_free(ix);
    close_image(&im);
}
END_TEST

START_TEST(not_for_images_with_dwarf)
{
    struct image im;
    ck_assert_msg(open_image(SYMCASES_G, &im), "cannot open " SYMCASES_G);
    ck_assert(!symindex_applies(im.abfd));
    close_image(&im);
}
END_TEST

/* cc1 is what the index is for: a big dynamic symbol table, no DWARF.
 * Around every 16th function's start and end, and in its middle. */
START_TEST(sample_of_cc1)
{
    char path[4096] = "";
    FILE *p = popen("cc -print-prog-name=cc1 2>/dev/null", "r");
    if (p) {
        if (!fgets(path, sizeof path, p))
            path[0] = '\0';
        pclose(p);
    }
    path[strcspn(path, "\n")] = '\0';
    struct image im;
    if (path[0] != '/' || !open_image(path, &im)) {
        fprintf(stderr, "sample_of_cc1: no cc1 found, skipped\n");
        return;
    }
    if (!symindex_applies(im.abfd)) {
        fprintf(stderr, "sample_of_cc1: %s has debug information, skipped\n",
                path);
        close_image(&im);
        return;
    }
    struct symindex *ix = symindex_build(im.syms);
    unsigned n = 0, checked = 0;
    for (asymbol **s = im.syms; *s; s++) {
        asection *sec = (*s)->section;
        if (!(bfd_section_flags(sec) & SEC_CODE) ||
            !((*s)->flags & BSF_FUNCTION) || n++ % 16)
            continue;
        asection *other = other_section(im.abfd, sec);
        bfd_vma at[] = { (*s)->value - 1, (*s)->value, (*s)->value + 1,
                         (*s)->value + 37 };
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++, checked++)
            check_offset(&im, ix, sec, other, at[i]);
    }
    ck_assert_uint_gt(checked, 1000);
    symindex_free(ix);
    close_image(&im);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("symindex");
    TCase *tc = tcase_create("symindex");
    tcase_add_test(tc, every_byte_of_symcases);
    tcase_add_test(tc, hand_checked_answers);
    tcase_add_test(tc, not_for_images_with_dwarf);
    tcase_add_test(tc, sample_of_cc1);
    suite_add_tcase(s, tc);
    return s;
}
