/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: where function symbols end (symextent.c), on
 * build/symcases.so (progs/symcases.S) and on the same library stripped
 * to its dynamic symbols.  The symbols' addresses are read with libbfd,
 * the expected answers come from the sizes written in symcases.S.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define PACKAGE "mtrace-check-tests" /* bfd.h insists on a config.h */
#define PACKAGE_VERSION "1"
#include <bfd.h>

#include "unit.h"
#include "symbolize/symextent.h"

#include <stdio.h>
#include <unistd.h>

#define SYMCASES "build/symcases.so"
#define STRIPPED "build/symcases-stripped.so"

/* The link-time address (st_value) of the symbol NAME of SYMCASES. */
static uint64_t address_of(const char *name)
{
    bfd_init();
    bfd *abfd = bfd_openr(SYMCASES, NULL);
    ck_assert_ptr_nonnull(abfd);
    ck_assert(bfd_check_format(abfd, bfd_object));
    long size = bfd_get_symtab_upper_bound(abfd);
    ck_assert_int_gt(size, 0);
    asymbol **syms = xmalloc((size_t)size);
    long n = bfd_canonicalize_symtab(abfd, syms);
    uint64_t at = UINT64_MAX;
    for (long i = 0; i < n; i++)
        if (strcmp(bfd_asymbol_name(syms[i]), name) == 0)
            at = bfd_asymbol_value(syms[i]);
    free(syms);
    bfd_close(abfd);
    ck_assert_msg(at != UINT64_MAX, "no symbol %s in " SYMCASES, name);
    return at;
}

struct extent_case {
    const char *sym;
    uint64_t delta;
    int covered, covered_stripped;
};

/* Each case: SYM + DELTA, in the full library and in the stripped one
 * (where only the global symbols are left). */
static const struct extent_case cases[] = {
    { "plain", 0, 1, 1 },
    { "plain", 15, 1, 1 },
    { "plain", 16, 0, 0 }, /* the 8-byte gap after it: no function */
    { "plain", 23, 0, 0 },
    { "outer", 0, 1, 0 },        /* a local: gone when stripped */
    { "early_inner", 8, 1, 0 },  /* past its own end, inside outer */
    { "late_inner", 16, 1, 0 },  /* past its end, outer ends there too */
    { "tie_notype", 47, 1, 1 },  /* the longest of four at one address */
    { "tie_notype", 48, 0, 0 },  /* annobin_like is no function */
    { "big", 63, 1, 1 },
    { "big", 64, 0, 0 },         /* table_in_text: an object */
    { "static_fn", 4, 1, 0 },
    { "unsized", 0, 1, 1 },
    { "unsized", 23, 1, 1 },     /* st_size 0: up to the next symbol */
    { "last_sized", 7, 1, 1 },
    { "last_sized", 8, 0, 0 },   /* the bytes after it to the end of .text */
    { "last_sized", 47, 0, 0 },
};

static void check_cases(const char *path, int stripped)
{
    struct symextent *x = symextent_load(path);
    ck_assert_msg(x != NULL, "no extents read from %s", path);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct extent_case *c = &cases[i];
        uint64_t at = address_of(c->sym) + c->delta;
        int want = stripped ? c->covered_stripped : c->covered;
        ck_assert_msg(symextent_covers(x, at) == want,
                      "%s: %s+%lu (%#lx): covered %d, want %d", path, c->sym,
                      (unsigned long)c->delta, (unsigned long)at, !want, want);
    }
    symextent_free(x);
}

START_TEST(symcases_full)
{
    check_cases(SYMCASES, 0);
}
END_TEST

START_TEST(symcases_stripped)
{
    check_cases(STRIPPED, 1);
}
END_TEST

/* Files that are no ELF image, or cut short, give no index (nothing
 * known, no answer changed), and never a crash. */
START_TEST(not_images)
{
    ck_assert_ptr_null(symextent_load("/nonexistent/file"));
    ck_assert_ptr_null(symextent_load("/etc/passwd"));
    ck_assert_ptr_null(symextent_load("/dev/null"));
    ck_assert_ptr_null(symextent_load("."));
    /* Every cut of the library's first 4 KiB and a cut past its headers:
     * section headers out of the file are refused. */
    FILE *in = fopen(SYMCASES, "rb");
    ck_assert_ptr_nonnull(in);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    ck_assert_uint_gt(n, 1024);
    char path[] = "build/symextent-cut.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    for (size_t k = 0; k < n; k += k < 256 ? 1 : 97) {
        ck_assert_int_eq(ftruncate(fd, 0), 0);
        ck_assert_int_eq(pwrite(fd, buf, k, 0), (ssize_t)k);
        struct symextent *x = symextent_load(path);
        if (x) /* the section headers fitted: any answer, no crash */
            (void)symextent_covers(x, 0x1000);
        symextent_free(x);
    }
    close(fd);
    unlink(path);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("symextent");
    TCase *tc = tcase_create("symextent");
    tcase_add_test(tc, symcases_full);
    tcase_add_test(tc, symcases_stripped);
    tcase_add_test(tc, not_images);
    suite_add_tcase(s, tc);
    return s;
}
