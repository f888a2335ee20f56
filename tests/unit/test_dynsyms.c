/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_dynsyms.c - dynsyms_addr (dynsyms.h) against dladdr itself: the same
 * file, base, symbol and symbol address for code addresses all over the
 * runner (linked -rdynamic), libc (many aliases of one address) and
 * libstdc++, at random and at the symbols' edges; and answered from the
 * sorted table, not by calling dladdr.
 */
#define _GNU_SOURCE
#include "unit.h"
#include "symbols/dynsyms.h"
#include "symbols/modmap.h"
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

/* The executable PT_LOAD segments of the object holding ADDR. */
struct code {
    uintptr_t target;
    int found, n;
    uintptr_t lo[8], hi[8];
};

static int code_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct code *c = arg;
    int mine = 0, n = 0;
    uintptr_t lo[8], hi[8];
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        if (c->target >= a && c->target < b)
            mine = 1;
        if ((ph->p_flags & PF_X) && n < 8) {
            lo[n] = a;
            hi[n++] = b;
        }
    }
    if (!mine)
        return 0;
    c->found = 1;
    c->n = n;
    memcpy(c->lo, lo, sizeof lo);
    memcpy(c->hi, hi, sizeof hi);
    return 1;
}

static int same_string(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* ADDR named by both; returns whether a symbol was found. */
static int check_one(uintptr_t addr)
{
    struct module *mod = modmap_find(addr);
    Dl_info want, got;
    memset(&want, 0, sizeof want);
    memset(&got, 0x5a, sizeof got);
    int w = dladdr((void *)addr, &want);
    int g = dynsyms_addr((void *)addr, mod, &got);
    UT_CHECK(w == g, "%#lx: dladdr says %d, dynsyms %d", (unsigned long)addr,
             w, g);
    if (!w)
        return 0;
    UT_CHECK(same_string(want.dli_fname, got.dli_fname) &&
                 want.dli_fbase == got.dli_fbase,
             "%#lx: dladdr names %s at %p, dynsyms %s at %p",
             (unsigned long)addr, want.dli_fname, want.dli_fbase,
             got.dli_fname, got.dli_fbase);
    UT_CHECK(same_string(want.dli_sname, got.dli_sname) &&
                 want.dli_saddr == got.dli_saddr,
             "%#lx in %s: dladdr says %s at %p, dynsyms %s at %p",
             (unsigned long)addr, want.dli_fname,
             want.dli_sname ? want.dli_sname : "(none)", want.dli_saddr,
             got.dli_sname ? got.dli_sname : "(none)", got.dli_saddr);
    return want.dli_sname != NULL;
}

/* N random code addresses of the object holding ANCHOR, and the edges of
 * the symbols they fall in; ANCHOR's own symbol too.  The object's table
 * must exist afterwards: the answers came from it. */
static void check_object(const void *anchor, int n, uint64_t seed)
{
    struct code c = { (uintptr_t)anchor, 0, 0, { 0 }, { 0 } };
    dl_iterate_phdr(code_cb, &c);
    ck_assert_msg(c.found && c.n > 0, "no code segment around %p", anchor);
    int named = check_one((uintptr_t)anchor);
    for (int i = 0; i < n; i++) {
        int s = (int)(ut_rand(&seed) % (uint64_t)c.n);
        uintptr_t addr = c.lo[s] + ut_rand(&seed) % (c.hi[s] - c.lo[s]);
        if (!check_one(addr))
            continue;
        named++;
        Dl_info info;
        dladdr((void *)addr, &info);
        uintptr_t start = (uintptr_t)info.dli_saddr;
        for (int d = -1; d <= 1; d++)
            if (start + d >= c.lo[s] && start + d < c.hi[s])
                check_one(start + d);
    }
    ck_assert_msg(named > 0, "no address near %p has a symbol", anchor);
    struct module *mod = modmap_find((uintptr_t)anchor);
    ck_assert_ptr_nonnull(mod);
    ck_assert_msg(atomic_load(&mod->dynsyms) != NULL,
                  "%s: answered without the sorted table", mod->path);
}

/* An exported function of the runner (-rdynamic), named through argv[0]. */
void dynsyms_probe_function(void);
__attribute__((noinline)) void dynsyms_probe_function(void)
{
    __asm__ volatile("" ::: "memory");
}

START_TEST(runner_like_dladdr)
{
    check_object((const void *)dynsyms_probe_function, 3000, ut_seed(11));
}
END_TEST

/* libc exports many names for one address (malloc, __libc_malloc): dladdr
 * takes the first its hash table reaches. */
START_TEST(libc_like_dladdr)
{
    check_object((const char *)(uintptr_t)malloc + 4, 3000, ut_seed(12));
}
END_TEST

START_TEST(libstdcxx_like_dladdr)
{
    void *h = dlopen("libstdc++.so.6", RTLD_NOW);
    ck_assert_msg(h != NULL, "dlopen libstdc++.so.6: %s", dlerror());
    void *fn = dlsym(h, "_Znwm"); /* operator new(unsigned long) */
    ck_assert_ptr_nonnull(fn);
    check_object((const char *)fn + 4, 3000, ut_seed(13));
}
END_TEST

/* Without the module record the answer is dladdr's own. */
START_TEST(no_module_is_dladdr)
{
    Dl_info want, got;
    uintptr_t addr = (uintptr_t)free + 2;
    ck_assert_int_eq(dladdr((void *)addr, &want),
                     dynsyms_addr((void *)addr, NULL, &got));
    ck_assert_str_eq(want.dli_sname, got.dli_sname);
    ck_assert_ptr_eq(want.dli_saddr, got.dli_saddr);
}
END_TEST

Suite *dynsyms_suite(void)
{
    Suite *s = suite_create("dynsyms");
    TCase *tc = tcase_create("against dladdr");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, runner_like_dladdr);
    tcase_add_test(tc, libc_like_dladdr);
    tcase_add_test(tc, libstdcxx_like_dladdr);
    tcase_add_test(tc, no_module_is_dladdr);
    suite_add_tcase(s, tc);
    return s;
}
