/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the CI outputs' parts that need no log: fingerprints
 * (fingerprint.c), baseline files (baseline.c), the choice of generated
 * suppressions (gensupp.c) and the JUnit writer's escaping (junit.c).
 * tests/integration/tests-ci.sh runs them on real traced programs.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "findings/baseline.h"
#include "output/cireport.h"
#include "findings/fingerprint.h"

#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* A stack from "FUNC FILE LINE MODULE OFF" per frame ("-": NULL). */
static struct view_frames stack(const char *const *spec, size_t n)
{
    struct view_frames f = { calloc(n + 1, sizeof(struct view_frame)), n, n };
    for (size_t i = 0; i < n; i++) {
        char fn[64], file[64], mod[64];
        unsigned line;
        unsigned long off;
        ck_assert_int_eq(sscanf(spec[i], "%63s %63s %u %63s %lx", fn, file,
                                &line, mod, &off), 5);
        struct view_frame *v = &f.v[i];
        v->function = strcmp(fn, "-") ? strdup(fn) : NULL;
        v->file = strcmp(file, "-") ? strdup(file) : NULL;
        v->module = strcmp(mod, "-") ? strdup(mod) : NULL;
        v->line = line;
        v->off = off;
    }
    return f;
}

static void drop(struct view_frames *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free((char *)f->v[i].function);
        free((char *)f->v[i].file);
        free((char *)f->v[i].module);
    }
    free(f->v);
}

#define STACK(...)                                                             \
    stack((const char *const[]){ __VA_ARGS__ },                                \
          sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

static void fp_of(struct view_frames *f, char *out)
{
    struct fp_item it = { f, 0, "" };
    fingerprint_assign(&it, 1);
    strcpy(out, it.fp);
}

START_TEST(no_addresses_lines_dirs_modules)
{
    struct view_frames a = STACK("leak /src/a/x.c 10 /a/prog 1234",
                                 "main /src/a/x.c 40 /a/prog 1300",
                                 "__libc_start_main - 0 " LIBC " 27305");
    /* Rebuilt elsewhere under another name, lines and offsets moved, a
     * libc frame (strdup) inside and another libc below main. */
    struct view_frames b = STACK("__strdup - 0 " LIBC " 9e9aa",
                                 "leak /home/ci/b/x.c 17 /b/prog-test 2234",
                                 "main /home/ci/b/x.c 52 /b/prog-test 2400",
                                 "__libc_start_call_main - 0 " LIBC " 2724a");
    struct view_frames c = STACK("leak2 /src/a/x.c 10 /a/prog 1234",
                                 "main /src/a/x.c 40 /a/prog 1300");
    struct view_frames d = STACK("leak /src/a/y.c 10 /a/prog 1234",
                                 "main /src/a/x.c 40 /a/prog 1300");
    char fa[FP_LEN], fb[FP_LEN], fc[FP_LEN], fd[FP_LEN];
    fp_of(&a, fa);
    fp_of(&b, fb);
    fp_of(&c, fc);
    fp_of(&d, fd);
    ck_assert_str_eq(fa, fb);
    ck_assert_str_ne(fa, fc); /* another function */
    ck_assert_str_ne(fa, fd); /* another file */
    ck_assert(baseline_is_fingerprint(fa, strlen(fa)));
    ck_assert_uint_eq(strlen(fa), 16);
    drop(&a);
    drop(&b);
    drop(&c);
    drop(&d);
}
END_TEST

/* Only the C runtime's frames: hashed from them, not from nothing. */
START_TEST(runtime_only)
{
    struct view_frames a = STACK("_dl_new_object - 0 /lib64/ld-linux-x86-64.so.2 1",
                                 "_dl_map_object - 0 /lib64/ld-linux-x86-64.so.2 2");
    struct view_frames b = STACK("__strdup - 0 " LIBC " 1",
                                 "setlocale - 0 " LIBC " 2");
    char fa[FP_LEN], fb[FP_LEN];
    fp_of(&a, fa);
    fp_of(&b, fb);
    ck_assert_str_ne(fa, fb);
    drop(&a);
    drop(&b);
}
END_TEST

/* Two stacks that differ only by line: ".2" for the later line; records
 * of one stack (two classes) share theirs. */
START_TEST(same_functions_other_lines)
{
    struct view_frames lo = STACK("f /s/x.c 20 /p 100", "main /s/x.c 90 /p 400");
    struct view_frames hi = STACK("f /s/x.c 25 /p 130", "main /s/x.c 90 /p 400");
    struct view_frames same_line = STACK("f /s/x.c 25 /p 138",
                                         "main /s/x.c 90 /p 400");
    struct fp_item it[] = { { &same_line, 7, "" }, { &hi, 5, "" },
                            { &lo, 9, "" },        { &hi, 5, "" } };
    fingerprint_assign(it, 4);
    char base[FP_LEN];
    snprintf(base, sizeof base, "%s", it[2].fp);
    ck_assert_uint_eq(strlen(base), 16);
    char want[FP_LEN + 4];
    snprintf(want, sizeof want, "%s.2", base);
    ck_assert_str_eq(it[1].fp, want);
    ck_assert_str_eq(it[3].fp, want);
    snprintf(want, sizeof want, "%s.3", base); /* same line, later call */
    ck_assert_str_eq(it[0].fp, want);
    drop(&lo);
    drop(&hi);
    drop(&same_line);
}
END_TEST

/* The hash as fingerprint.h defines it, one byte at a time. */
static uint64_t ref_fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull;
}

static int ref_runtime(const struct view_frame *v)
{
    return v->module && strstr(v->module, "/libc.so") != NULL;
}

static uint64_t ref_hash(const struct view_frames *f)
{
    int own = 0;
    for (size_t i = 0; i < f->n; i++)
        own |= !ref_runtime(&f->v[i]);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < f->n; i++) {
        const struct view_frame *v = &f->v[i];
        if (own && ref_runtime(v))
            continue;
        const char *file = v->file ? strrchr(v->file, '/') : NULL;
        h = ref_fnv(h, v->function ? v->function : "??");
        h = ref_fnv(h, file ? file + 1 : v->file ? v->file : "");
    }
    return h;
}

/* Enough records that their hashes are taken in two threads: each is
 * the hash of its own frames, runtime frames left out unless the stack
 * has no other, and two records of one stack share their fingerprint. */
START_TEST(many_records)
{
    enum { N = 6000, POOL = 7 };
    static const char *const fn[POOL] = { "f", NULL, "operator new(unsigned long)",
                                          "main", "a_rather_long_function_name", "g", "" };
    static const char *const file[POOL] = { "/s/x.c", NULL, "y.cc", "/a/b/c/z.c",
                                            NULL, "/s/x.c", "/" };
    static const char *const mod[POOL] = { "/p", LIBC, "/p", NULL, LIBC,
                                           "/usr/lib/libc.so.6", "/q" };
    unsigned seed = (unsigned)ut_seed(9);
    struct view_frames *v = calloc(N, sizeof *v);
    struct fp_item *it = calloc(N + 1, sizeof *it);
    for (size_t i = 0; i < N; i++) {
        v[i].n = v[i].cap = rnd(&seed) % 12;
        v[i].v = calloc(v[i].n + 1, sizeof *v[i].v);
        for (size_t k = 0; k < v[i].n; k++) {
            unsigned a = rnd(&seed) % POOL, b = rnd(&seed) % POOL;
            v[i].v[k] = (struct view_frame){ .function = fn[a], .file = file[b],
                                             .module = mod[rnd(&seed) % POOL],
                                             .line = rnd(&seed) % 3,
                                             .off = rnd(&seed) % 5 };
        }
        it[i].frames = i % 50 == 7 ? NULL : &v[i];
        it[i].stack = (int32_t)i;
    }
    it[N] = it[N - 1]; /* one stack, two records */
    fingerprint_assign(it, N + 1);
    for (size_t i = 0; i < N; i++) {
        char want[FP_LEN];
        snprintf(want, sizeof want, "%016" PRIx64,
                 it[i].frames ? ref_hash(it[i].frames)
                              : (uint64_t)0xcbf29ce484222325ull);
        UT_CHECK(strncmp(it[i].fp, want, 16) == 0, "record %zu: %s, want %s",
                 i, it[i].fp, want);
    }
    ck_assert_str_eq(it[N].fp, it[N - 1].fp);
    for (size_t i = 0; i < N; i++)
        free(v[i].v);
    free(v);
    free(it);
}
END_TEST

static const char *write_tmp(const char *text)
{
    static char path[] = "/tmp/mtc-baseline-XXXXXX";
    strcpy(path, "/tmp/mtc-baseline-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

START_TEST(baseline_files)
{
    struct baseline b;
    const char *p = write_tmp("# comment\n\n0123456789abcdef  # f (x.c)\n"
                              "  fedcba9876543210.2\n");
    ck_assert_int_eq(baseline_load(&b, p), 0);
    ck_assert_uint_eq(b.n, 2);
    ck_assert(baseline_has(&b, "0123456789abcdef"));
    ck_assert(baseline_has(&b, "fedcba9876543210.2"));
    ck_assert(!baseline_has(&b, "fedcba9876543210"));
    ck_assert(!baseline_has(NULL, "0123456789abcdef"));
    baseline_destroy(&b);
    unlink(p);
    static const char *const bad[] = {
        "0123456789ABCDEF\n", "0123456789abcde\n", "0123456789abcdef.0\n",
        "0123456789abcdef.\n", "0123456789abcdef x\n", "leak:^f$\n",
        "0123456789abcdef0\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = write_tmp(bad[i]);
        UT_CHECK(baseline_load(&b, p) == -1, "accepted %s", bad[i]);
        unlink(p);
    }
    ck_assert_int_eq(baseline_load(&b, "/nonexistent/baseline"), -1);
}
END_TEST

static struct ci_record record(struct view_frames f, const char *fp,
                               enum leak_class cls)
{
    struct ci_record r = { .cls = cls, .bytes = 10, .blocks = 1,
                           .frames = f, .has_stack = 1 };
    snprintf(r.fp, sizeof r.fp, "%s", fp);
    return r;
}

/* The innermost own function in no other record's stack; a shared one
 * when there is none; never a libc frame, never a file or a module. */
START_TEST(generated_patterns)
{
    struct ci_record r[] = {
        record(STACK("__strdup - 0 " LIBC " 1", "helper /s/x.c 5 /p 10",
                     "load /s/x.c 20 /p 20", "main /s/x.c 90 /p 400"),
               "1111111111111111", CLASS_DEFINITE),
        record(STACK("helper /s/x.c 5 /p 10", "parse /s/x.c 30 /p 30",
                     "main /s/x.c 91 /p 410"),
               "2222222222222222", CLASS_DEFINITE),
        record(STACK("parse /s/x.c 31 /p 34", "main /s/x.c 91 /p 410"),
               "3333333333333333", CLASS_POSSIBLE),
        record(STACK("parse /s/x.c 31 /p 34", "main /s/x.c 91 /p 410"),
               "3333333333333333", CLASS_INDIRECT),
        record(STACK("keep /s/x.c 3 /p 3", "main /s/x.c 92 /p 420"),
               "4444444444444444", CLASS_REACHABLE),
    };
    struct ci_log l = { .log = "log", .r = r, .n = sizeof r / sizeof r[0] };
    gensupp_assign(&l);
    ck_assert_str_eq(r[0].pattern, "^load$");   /* helper is shared */
    ck_assert_str_eq(r[1].pattern, "^helper$"); /* all shared: innermost */
    ck_assert_str_eq(r[2].pattern, "^parse$");  /* its own stack's twin */
    ck_assert_str_eq(r[3].pattern, "^parse$");
    ck_assert_ptr_null(r[4].pattern);           /* no leak */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    ck_assert_int_eq(gensupp_write(m, &l, 1), 0);
    fclose(m);
    ck_assert_ptr_nonnull(strstr(text, "\nleak:^load$\n"));
    ck_assert_ptr_nonnull(strstr(text, "also matches 1 of them"));
    ck_assert_ptr_null(strstr(strstr(text, "leak:^parse$") + 1, "leak:^parse$"));
    free(text);
    for (size_t i = 0; i < l.n; i++) {
        drop(&r[i].frames);
        free(r[i].pattern);
    }
}
END_TEST

/* Names from a log are arbitrary bytes: the XML stays well-formed. */
START_TEST(junit_escaping)
{
    struct ci_record r = record(STACK("op<&\"'> /s/x.c 5 /p 10"),
                                "1111111111111111", CLASS_DEFINITE);
    r.failing = 1;
    free((char *)r.frames.v[0].file);
    r.frames.v[0].file = strdup("/s/\x01\xff.c");
    struct ci_log l = { .log = "a<b>.log", .r = &r, .n = 1 };
    struct ci_report rep = { .binary = NULL, .baseline = 0, .logs = &l, .nlogs = 1 };
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    ck_assert_int_eq(junit_write(m, &rep), 0);
    fclose(m);
    ck_assert_ptr_nonnull(strstr(text, "op&lt;&amp;&quot;&apos;&gt;"));
    ck_assert_ptr_nonnull(strstr(text, "name=\"a&lt;b&gt;.log\""));
    ck_assert_ptr_nonnull(strstr(text, "/s/??.c"));
    ck_assert_ptr_nonnull(strstr(text, "<failure type=\"definitely-lost\""));
    free(text);
    drop(&r.frames);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("ci");
    TCase *t = tcase_create("ci");
    tcase_add_test(t, no_addresses_lines_dirs_modules);
    tcase_add_test(t, runtime_only);
    tcase_add_test(t, same_functions_other_lines);
    tcase_add_test(t, many_records);
    tcase_add_test(t, baseline_files);
    tcase_add_test(t, generated_patterns);
    tcase_add_test(t, junit_escaping);
    suite_add_tcase(s, t);
    return s;
}
