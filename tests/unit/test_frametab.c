/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_frametab.c - frametab.h: module, offset, demangled symbol and
 * glibc's WHERE string of code addresses, each checked against dladdr
 * and snprintf. */
#define _GNU_SOURCE
#include "unit.h"
#include "symbols/frametab.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* glibc's tr_where() (malloc/mtrace.c), rebuilt from dladdr with printf:
 * "FILE:(SYM+OFF)[0xREL]", "FILE:[0xREL]", or "[%p]" without dladdr. */
static void glibc_where(uintptr_t addr, char *out, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)addr, &info)) {
        snprintf(out, size, "[%p]", (void *)addr);
        return;
    }
    char sym[4200] = "";
    if (info.dli_sname) {
        uintptr_t s = (uintptr_t)info.dli_saddr;
        snprintf(sym, sizeof sym, "(%s%c%lx)", info.dli_sname,
                 addr >= s ? '+' : '-',
                 (unsigned long)(addr >= s ? addr - s : s - addr));
    }
    snprintf(out, size, "%s%s%s[0x%lx]", info.dli_fname ? info.dli_fname : "",
             info.dli_fname ? ":" : "", sym,
             (unsigned long)(addr - (uintptr_t)info.dli_fbase));
}

/* The frame for ADDR has the right address, module, offset and WHERE. */
static struct frame *check_frame(uintptr_t addr)
{
    struct frame *f = frametab_get(addr);
    char where[8192];
    uintptr_t bias;
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->addr, addr);
    ck_assert(ut_object_of(addr, &bias, NULL, 0));
    ck_assert_ptr_nonnull(f->mod);
    ck_assert_uint_eq(f->mod->bias, bias);
    ck_assert_uint_eq(f->offset, addr - bias);
    glibc_where(addr, where, sizeof where);
    ck_assert_ptr_nonnull(f->where);
    ck_assert_str_eq(f->where, where);
    ck_assert_uint_eq(f->where_len, strlen(where));
    return f;
}

START_TEST(exported_c_function)
{
    uintptr_t fn = (uintptr_t)ut_probe_a;
    struct frame *f = check_frame(fn);
    ck_assert_str_eq(f->symbol, "ut_probe_a");
    ck_assert_uint_eq(f->symbol_offset, 0);
    ck_assert_ptr_nonnull(strstr(f->where, "(ut_probe_a+0)[0x"));
    f = check_frame(fn + 5); /* a return address inside the body */
    ck_assert_str_eq(f->symbol, "ut_probe_a");
    ck_assert_uint_eq(f->symbol_offset, 5);
    ck_assert_ptr_nonnull(strstr(f->where, "(ut_probe_a+5)[0x"));
}
END_TEST

START_TEST(same_address_same_frame)
{
    uintptr_t fn = (uintptr_t)ut_probe_b + 2;
    struct frame *f = frametab_get(fn);
    ck_assert_ptr_eq(frametab_get(fn), f);
    ck_assert_ptr_ne(frametab_get(fn + 1), f);
    unsigned epoch = frametab_epoch();
    frametab_new_epoch();
    ck_assert_uint_eq(frametab_epoch(), epoch + 1);
    struct frame *g = check_frame(fn); /* resolved again */
    ck_assert_ptr_ne(g, f);
    ck_assert_uint_eq(g->epoch, epoch + 1);
    ck_assert_uint_eq(f->epoch, epoch);
    ck_assert_str_eq(g->symbol, f->symbol);
}
END_TEST

START_TEST(cxx_symbol_in_runner)
{
    uintptr_t fn = ut_cxx_probe_address();
    struct frame *f = check_frame(fn + 1);
    ck_assert_str_eq(f->symbol, "mtt::probe(mtt::box<int> const&, char)");
    ck_assert_uint_eq(f->symbol_offset, 1);
    /* glibc writes the raw (mangled) name in WHERE. */
    ck_assert_ptr_nonnull(strstr(f->where, "(_ZN3mtt5probeERKNS_3boxIiEEc+1)"));
}
END_TEST

/* Exported C++ functions of libstdc++, whichever alias dladdr picks. */
START_TEST(cxx_symbol_in_libstdcxx)
{
    static const struct {
        const char *mangled, *demangled;
    } syms[] = {
        { "_ZNSt6chrono3_V212system_clock3nowEv",
          "std::chrono::_V2::system_clock::now()" },
        { "_ZNSt13runtime_errorC1EPKc",
          "std::runtime_error::runtime_error(char const*)" },
    };
    void *lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "dlopen libstdc++: %s", dlerror());
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlsym(lib, syms[i].mangled);
        ck_assert_msg(p != NULL, "%s not found", syms[i].mangled);
        struct frame *f = check_frame((uintptr_t)p);
        ck_assert_str_eq(f->symbol, syms[i].demangled);
        ck_assert_uint_eq(f->symbol_offset, 0);
    }
}
END_TEST

START_TEST(libc_function)
{
    void *p = dlsym(RTLD_DEFAULT, "getpid");
    ck_assert_ptr_nonnull(p);
    Dl_info info;
    ck_assert(dladdr((char *)p + 3, &info));
    struct frame *f = check_frame((uintptr_t)p + 3);
    /* A C name is its own demangling. */
    ck_assert_str_eq(f->symbol, info.dli_sname);
    ck_assert_uint_eq(f->symbol_offset,
                      (uintptr_t)p + 3 - (uintptr_t)info.dli_saddr);
}
END_TEST

/* A function with no dynamic symbol: "FILE:[0xREL]", no symbol. */
static __attribute__((noinline, used)) int hidden_function(int x)
{
    volatile int v = x;
    return v * 5;
}

START_TEST(no_symbol)
{
    uintptr_t addr = (uintptr_t)hidden_function + 1;
    Dl_info info;
    ck_assert(dladdr((void *)addr, &info));
    struct frame *f = check_frame(addr);
    if (info.dli_sname == NULL) {
        ck_assert_ptr_null(f->symbol);
        ck_assert_ptr_null(strchr(f->where, '('));
    }
}
END_TEST

/* An anonymous mapping is in no module: "[0xADDR]", as glibc's "[%p]". */
START_TEST(outside_every_module)
{
    char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                      0);
    ck_assert(page != MAP_FAILED);
    uintptr_t addr = (uintptr_t)page + 0x10;
    struct frame *f = frametab_get(addr);
    char want[64];
    snprintf(want, sizeof want, "[%p]", (void *)addr);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_null(f->mod);
    ck_assert_uint_eq(f->offset, addr);
    ck_assert_ptr_null(f->symbol);
    ck_assert_str_eq(f->where, want);
    ck_assert_uint_eq(f->where_len, strlen(want));
    munmap(page, 4096);
}
END_TEST

/* Copies probe.so (built next to the runner) to DEST. */
static void copy_probe(const char *dest)
{
    char dir[PATH_MAX], src[PATH_MAX + 16];
    ut_exe_dir(dir, sizeof dir);
    snprintf(src, sizeof src, "%s/probe.so", dir);
    size_t len;
    char *image = ut_slurp(src, &len);
    int fd = open(dest, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, image, len), (ssize_t)len);
    close(fd);
    free(image);
}

/* WHERE strings have no length limit: a module path of ~3500 bytes (more
 * than a fixed 4 KiB buffer leaves for the file part) comes out whole. */
START_TEST(long_module_path)
{
    char top[256], path[PATH_MAX];
    ut_mkdtemp(top, sizeof top);
    size_t n = (size_t)snprintf(path, sizeof path, "%s", top);
    while (n < 3300) {
        path[n++] = '/';
        memset(path + n, 'd', 200);
        n += 200;
        path[n] = '\0';
        ck_assert_int_eq(mkdir(path, 0755), 0);
    }
    snprintf(path + n, sizeof path - n, "/probe.so");
    copy_probe(path);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "dlopen: %s", dlerror());
    uintptr_t fn = (uintptr_t)dlsym(h, "probe_dso_function");
    ck_assert(fn != 0);
    struct frame *f = check_frame(fn + 1);
    ck_assert_str_eq(f->symbol, "probe_dso_function");
    ck_assert_uint_gt(f->where_len, strlen(path));
    dlclose(h);
    ut_rmtree(top);
}
END_TEST

Suite *frametab_suite(void)
{
    Suite *s = suite_create("frametab");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, exported_c_function);
    tcase_add_test(tc, same_address_same_frame);
    tcase_add_test(tc, cxx_symbol_in_runner);
    tcase_add_test(tc, cxx_symbol_in_libstdcxx);
    tcase_add_test(tc, libc_function);
    tcase_add_test(tc, no_symbol);
    tcase_add_test(tc, outside_every_module);
    tcase_add_test(tc, long_module_path);
    suite_add_tcase(s, tc);
    return s;
}
