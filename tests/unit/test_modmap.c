/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_modmap.c - modmap.h: modules of the runner, libc and a dlopen()ed
 * probe.so, their bias, extent, path and build-id (read from the files
 * on disk here), and unload marking after dlclose(). */
#define _GNU_SOURCE
#include "unit.h"
#include "symbols/modmap.h"
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* MOD describes the object that our own dl_iterate_phdr walk finds for
 * ADDR, with the build-id that the file FILE carries. */
static void check_module(struct module *mod, uintptr_t addr, const char *file)
{
    uintptr_t bias;
    char id[BUILD_ID_HEX_MAX + 1];
    ck_assert_ptr_nonnull(mod);
    ck_assert(ut_object_of(addr, &bias, NULL, 0));
    ck_assert_uint_eq(mod->bias, bias);
    ck_assert_uint_le(mod->lo, addr);
    ck_assert_uint_gt(mod->hi, addr);
    ck_assert_int_eq(atomic_load(&mod->unloaded), 0);
    ck_assert_ptr_eq(modmap_get(mod->id), mod);
    ck_assert_int_eq(ut_file_build_id(file, id, sizeof id), 0);
    ck_assert_msg(id[0] != '\0', "%s has no build-id", file);
    ck_assert_str_eq(mod->build_id, id);
}

static void same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(a, ra));
    ck_assert_ptr_nonnull(realpath(b, rb));
    ck_assert_str_eq(ra, rb);
}

START_TEST(runner_executable)
{
    uintptr_t addr = (uintptr_t)ut_probe_a + 1;
    struct module *m = modmap_find(addr);
    check_module(m, addr, "/proc/self/exe");
    same_file(m->path, "/proc/self/exe");
    ck_assert_ptr_eq(modmap_find((uintptr_t)ut_probe_c), m);
}
END_TEST

START_TEST(libc)
{
    uintptr_t addr = (uintptr_t)dlsym(RTLD_DEFAULT, "getpid");
    Dl_info info;
    ck_assert(addr != 0 && dladdr((void *)addr, &info));
    struct module *m = modmap_find(addr);
    check_module(m, addr, info.dli_fname);
    same_file(m->path, info.dli_fname);
    ck_assert_ptr_ne(m, modmap_find((uintptr_t)ut_probe_a));
}
END_TEST

/* Cross-check the ELF reader with readelf -n, where readelf exists. */
START_TEST(libc_build_id_matches_readelf)
{
    Dl_info info;
    ck_assert(dladdr(dlsym(RTLD_DEFAULT, "getpid"), &info));
    struct module *m = modmap_find((uintptr_t)dlsym(RTLD_DEFAULT, "getpid"));
    ck_assert_ptr_nonnull(m);
    char cmd[PATH_MAX + 64], line[512], *id = NULL;
    snprintf(cmd, sizeof cmd, "readelf -n '%s' 2>/dev/null", info.dli_fname);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (fgets(line, sizeof line, p))
        if ((id = strstr(line, "Build ID: ")) != NULL) {
            id += strlen("Build ID: ");
            id[strcspn(id, " \n")] = '\0';
            break;
        }
    pclose(p);
    if (id == NULL)
        return; /* no readelf here: the file reader check stands alone */
    ck_assert_str_eq(m->build_id, id);
}
END_TEST

START_TEST(ids_in_order)
{
    /* Modules are recorded as addresses in them are met. */
    modmap_find((uintptr_t)ut_probe_a);
    modmap_find((uintptr_t)getpid);
    int n = modmap_count();
    ck_assert_int_ge(n, 2); /* the runner and libc */
    for (int i = 0; i < n; i++) {
        struct module *m = modmap_get(i);
        ck_assert_ptr_nonnull(m);
        ck_assert_int_eq(m->id, i);
        ck_assert_uint_lt(m->lo, m->hi);
        ck_assert_ptr_nonnull(m->path);
    }
    ck_assert_ptr_null(modmap_get(n));
    ck_assert_ptr_null(modmap_get(-1));
}
END_TEST

START_TEST(anonymous_memory)
{
    char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                      0);
    ck_assert(page != MAP_FAILED);
    ck_assert_ptr_null(modmap_find((uintptr_t)page + 8));
    munmap(page, 4096);
}
END_TEST

static void probe_path(char *out, size_t size)
{
    char dir[PATH_MAX];
    ut_exe_dir(dir, sizeof dir);
    snprintf(out, size, "%s/probe.so", dir);
}

static void *open_probe(const char *path, uintptr_t *fn)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "dlopen: %s", dlerror());
    *fn = (uintptr_t)dlsym(h, "probe_dso_function");
    ck_assert(*fn != 0);
    return h;
}

START_TEST(dlopen_dlclose)
{
    char path[PATH_MAX + 16];
    uintptr_t fn;
    probe_path(path, sizeof path);
    modmap_find((uintptr_t)ut_probe_a); /* the table knows the start-up set */
    ck_assert_int_eq(modmap_mark_unloaded(), 0);

    void *h = open_probe(path, &fn);
    struct module *m = modmap_find(fn + 2);
    check_module(m, fn + 2, path);
    same_file(m->path, path);
    ck_assert_int_eq(modmap_mark_unloaded(), 0); /* still loaded */

    ck_assert_int_eq(dlclose(h), 0);
    ck_assert_ptr_null(dlopen(path, RTLD_NOW | RTLD_NOLOAD)); /* really gone */
    ck_assert_int_ge(modmap_mark_unloaded(), 1);
    ck_assert_int_eq(atomic_load(&m->unloaded), 1);
    ck_assert_ptr_eq(modmap_get(m->id), m); /* the record stays */
    ck_assert_ptr_null(modmap_find(fn + 2));
    ck_assert_int_eq(modmap_mark_unloaded(), 0); /* counted once */

    /* Loaded again: at the same place (the usual case) the record comes
     * back; elsewhere a new one is made and the old stays marked. */
    uintptr_t old_bias = m->bias;
    h = open_probe(path, &fn);
    struct module *again = modmap_find(fn + 2);
    check_module(again, fn + 2, path);
    if (again->bias == old_bias) {
        ck_assert_ptr_eq(again, m);
        ck_assert_int_eq(atomic_load(&m->unloaded), 0);
    } else {
        ck_assert_ptr_ne(again, m);
        ck_assert_int_gt(again->id, m->id);
        ck_assert_int_eq(atomic_load(&m->unloaded), 1);
    }
    dlclose(h);
    ck_assert_int_ge(modmap_mark_unloaded(), 1);
}
END_TEST

/* Another file at the place of an unloaded module is another module. */
START_TEST(other_file_same_place)
{
    char path[PATH_MAX + 16], copy[PATH_MAX + 32];
    uintptr_t fn;
    probe_path(path, sizeof path);
    snprintf(copy, sizeof copy, "%s.copy.so", path);
    char cmd[2 * PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
    ck_assert_int_eq(system(cmd), 0);
    modmap_mark_unloaded();
    void *h = open_probe(path, &fn);
    struct module *m = modmap_find(fn + 2);
    ck_assert_ptr_nonnull(m);
    dlclose(h);
    ck_assert_int_ge(modmap_mark_unloaded(), 1);
    h = open_probe(copy, &fn);
    struct module *other = modmap_find(fn + 2);
    check_module(other, fn + 2, copy);
    ck_assert_ptr_ne(other, m);
    ck_assert_int_eq(atomic_load(&m->unloaded), 1);
    dlclose(h);
    unlink(copy);
}
END_TEST

/* A module loaded by a relative path is recorded by its absolute path,
 * so the checker finds it from any directory (issue 10). */
START_TEST(relative_path_made_absolute)
{
    char path[PATH_MAX + 16], cwd[PATH_MAX];
    uintptr_t fn;
    probe_path(path, sizeof path);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    char *slash = strrchr(path, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = '\0';
    ck_assert_int_eq(chdir(path), 0);
    char rel[PATH_MAX + 16];
    snprintf(rel, sizeof rel, "./%s", slash + 1);
    void *h = open_probe(rel, &fn);
    ck_assert_int_eq(chdir(cwd), 0);
    struct module *m = modmap_find(fn + 2);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(m->path[0] == '/', "recorded as %s", m->path);
    *slash = '/';
    same_file(m->path, path);
    dlclose(h);
    modmap_mark_unloaded();
}
END_TEST

Suite *modmap_suite(void)
{
    Suite *s = suite_create("modmap");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, runner_executable);
    tcase_add_test(tc, libc);
    tcase_add_test(tc, libc_build_id_matches_readelf);
    tcase_add_test(tc, ids_in_order);
    tcase_add_test(tc, anonymous_memory);
    tcase_add_test(tc, dlopen_dlclose);
    tcase_add_test(tc, other_file_same_place);
    tcase_add_test(tc, relative_path_made_absolute);
    suite_add_tcase(s, tc);
    return s;
}
