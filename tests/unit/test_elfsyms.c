/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_elfsyms.c - the order of a module's function symbols (elfsyms.h):
 * by start, aliases (symbols of one start) in table order, whatever the
 * spread of the starts, as the lookup's "last symbol at or before" needs.
 */
#include "unit.h"
#include "symbols/elfsyms.h"
#include <stdlib.h>

/* The reference: insertion sort, stable by construction. */
static void insertion_sort(struct elfsym *s, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct elfsym x = s[i];
        size_t j = i;
        for (; j > 0 && s[j - 1].start > x.start; j--)
            s[j] = s[j - 1];
        s[j] = x;
    }
}

/* N symbols with starts drawn from a few values (many aliases) or from
 * all 64 bits, each named by its place in the table. */
static void check_order(size_t n, uintptr_t mask, unsigned seed)
{
    struct elfsym *got = calloc(n + 1, sizeof *got);
    struct elfsym *want = calloc(n + 1, sizeof *want);
    ck_assert(got && want);
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        uintptr_t r = ((uintptr_t)rand() << 42) ^ ((uintptr_t)rand() << 21) ^
                      (uintptr_t)rand();
        got[i] = (struct elfsym){ r & mask, i, (const char *)(uintptr_t)i };
    }
    memcpy(want, got, n * sizeof *got);
    insertion_sort(want, n);
    struct elfsym *room = calloc(n + 1, sizeof *room);
    ck_assert_ptr_nonnull(room);
    elfsyms_sort(got, n, room);
    free(room);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(got[i].start == want[i].start &&
                          got[i].name == want[i].name,
                      "n %zu mask %#lx: slot %zu holds #%zu at %#lx, not "
                      "#%zu at %#lx",
                      n, (unsigned long)mask, i, (size_t)got[i].size,
                      (unsigned long)got[i].start, (size_t)want[i].size,
                      (unsigned long)want[i].start);
    }
    free(got);
    free(want);
}

START_TEST(sorted_stably)
{
    check_order(0, ~(uintptr_t)0, 1);
    check_order(1, ~(uintptr_t)0, 2);
    check_order(2000, 0x3f, 3);                 /* one byte, many aliases */
    check_order(2000, 0xf0f0, 4);               /* bytes skipped and not */
    check_order(3000, 0x7fffff0, 5);            /* a library's offsets */
    check_order(3000, ~(uintptr_t)0, 6);        /* every byte */
    check_order(500, (uintptr_t)0xff << 56, 7); /* the top byte only */
}
END_TEST

Suite *elfsyms_suite(void)
{
    Suite *s = suite_create("elfsyms");
    TCase *c = tcase_create("sort");
    tcase_add_test(c, sorted_stably);
    suite_add_tcase(s, c);
    return s;
}
