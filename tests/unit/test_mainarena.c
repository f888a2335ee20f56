/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_mainarena.c - glibc's main arena found in libc's data
 * (scan/mainarena.h): glibc's own malloc in the test runner (never
 * interposed).  The end-to-end case (a leak that glibc's last remainder
 * pointed into) is the integration suite's verdict-last-remainder, in a
 * fresh process whose heap layout is known. */
#include "unit.h"
#include "scan/mainarena.h"
#include "scan/roots.h"
#include "symbols/maps.h"
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct maps {
    struct map_info m[1024];
    size_t n;
};

static int add(const struct mapping *m, void *arg)
{
    struct maps *ms = arg;
    if (ms->n < sizeof ms->m / sizeof ms->m[0] && m->perms[0] == 'r')
        ms->m[ms->n++] = (struct map_info){ m->start, m->end, MAPF_READ };
    return 0;
}

static struct addr_range find_it(void)
{
    static struct maps ms;
    ms.n = 0;
    ck_assert_int_eq(maps_each(add, &ms), 0);
    roots_init(); /* hands libc's segments to mainarena_init() */
    struct addr_range r;
    ck_assert_msg(mainarena_find(ms.m, ms.n, &r) == 0,
                  "the main arena was not found in libc's data");
    return r;
}

/* The words of the range that point into [LO, HI). */
static int words_into(const struct addr_range *r, uintptr_t lo, uintptr_t hi)
{
    int n = 0;
    for (uintptr_t a = r->lo; a < r->hi; a += sizeof(uintptr_t)) {
        uintptr_t w = *(const uintptr_t *)a;
        n += w >= lo && w < hi;
    }
    return n;
}

/* struct malloc_state's words as glibc 2.27 and later lay them out on
 * x86-64, written here apart from mainarena.c's own: top after the 10
 * fastbins, system_mem after the bins, the binmap, next, next_free and
 * attached_threads. */
#define TOP_AT (16 + 10 * 8)
#define SYSTEM_MEM_AT (TOP_AT + 16 + 254 * 8 + 16 + 3 * 8)

/* What mallinfo2() says of the main arena (the runner's child has no
 * other): the top chunk's size and the memory taken from the system are
 * in the struct found. */
START_TEST(the_struct_mallinfo_describes)
{
    void *held = malloc(100000); /* the arena has taken memory */
    struct addr_range r = find_it();
    struct mallinfo2 mi = mallinfo2();
    uintptr_t top = *(const uintptr_t *)(r.lo + TOP_AT);
    size_t top_size = ((const size_t *)top)[1] & ~(size_t)7;
    ck_assert_uint_eq(top_size, mi.keepcost);
    ck_assert_uint_eq(*(const size_t *)(r.lo + SYSTEM_MEM_AT), mi.arena);
    ck_assert_uint_ge(r.hi - r.lo, SYSTEM_MEM_AT + 16);
    free(held);
}
END_TEST

/* A chunk freed into the unsorted bin (too big for the thread cache and
 * the fast bins; guarded on both sides so that it merges with nothing)
 * is linked from a head in the struct. */
START_TEST(a_free_chunk_is_linked_from_it)
{
    void *before = malloc(100000), *chunk = malloc(100000),
         *after = malloc(100000);
    uintptr_t c = (uintptr_t)chunk - 16;
    free(chunk);
    struct addr_range r = find_it();
    ck_assert_int_ge(words_into(&r, c, c + 1), 1);
    free(before);
    free(after);
}
END_TEST

/* Found once and kept. */
START_TEST(found_twice_the_same)
{
    struct addr_range r1 = find_it(), r2 = find_it();
    ck_assert(r1.lo == r2.lo && r1.hi == r2.hi);
}
END_TEST

Suite *mainarena_suite(void)
{
    Suite *s = suite_create("mainarena");
    TCase *c = tcase_create("found");
    if (!UT_SANITIZED) { /* glibc's arena: not the sanitizer's malloc */
        tcase_add_test(c, the_struct_mallinfo_describes);
        tcase_add_test(c, a_free_chunk_is_linked_from_it);
        tcase_add_test(c, found_twice_the_same);
    }
    suite_add_tcase(s, c);
    return s;
}
