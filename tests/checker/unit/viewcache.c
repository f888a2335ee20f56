/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the views of a log's stacks made once (viewcache.c) are
 * frame for frame what view_stack makes of each stack, for frames in a
 * real file (this test program), in a module that cannot be opened (the
 * log's "#f" names), outside every module and in a module never defined;
 * and "#s" records read in one pass (records.c) give the frames, bad
 * records and dangling references of the field-by-field reading.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "read/fields.h"
#include "read/records.h"
#include "symbolize/stackview.h"
#include "symbolize/symbolizer.h"
#include "symbolize/viewcache.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static void rec(struct ext_store *x, const char *line)
{
    struct slice f[300];
    size_t nf = split_fields(line, strlen(line), f, 300);
    ext_record(x, line, strlen(line), f, nf);
}

/* Frame references of the store built below. */
static const char *const refs[] = {
    "0:0x1100", "0:0x1180", "0:0x1234", "0:0x2000", "0:0x0",  "1:0x10",
    "1:0x20",   "1:0x30",   "-:0x7777", "-:0x8888", "9:0x40",
};

static void build_store(struct ext_store *x, unsigned *seed, size_t nstacks)
{
    char exe[PATH_MAX], line[PATH_MAX + 1024];
    ck_assert_ptr_nonnull(realpath("/proc/self/exe", exe));
    ext_init(x);
    rec(x, "#v 1");
    snprintf(line, sizeof line, "#m 0 0x0 - %s", exe);
    rec(x, line);
    rec(x, "#m 1 0x0 - /nonexistent/libviewcache-test.so");
    rec(x, "#f 1 0x10 0x4 named_in_the_log");
    rec(x, "#f 1 0x30 0x2 another_name");
    rec(x, "#f - 0x7777 0x1 absolute_name");
    rec(x, "#s 1"); /* no frames */
    for (size_t s = 1; s < nstacks; s++) {
        int n = snprintf(line, sizeof line, "#s %zu", s + 1);
        size_t depth = 1 + rnd(seed) % 40;
        for (size_t k = 0; k < depth; k++)
            n += snprintf(line + n, sizeof line - (size_t)n, " %s",
                          refs[rnd(seed) % (sizeof refs / sizeof refs[0])]);
        rec(x, line);
    }
    ck_assert_uint_eq(x->nstacks, nstacks);
}

static void same_view(const struct view_frames *a, const struct view_frames *b)
{
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct view_frame *x = &a->v[i], *y = &b->v[i];
        UT_CHECK(x->function == y->function && x->file == y->file &&
                     x->line == y->line && x->module == y->module &&
                     x->unknown_module == y->unknown_module &&
                     x->off == y->off && x->inlined == y->inlined,
                 "frame %zu differs", i);
    }
}

START_TEST(views_are_view_stack)
{
    unsigned seed = (unsigned)ut_seed(7);
    struct ext_store x;
    sym_init();
    view_init(NULL);
    build_store(&x, &seed, 300);
    struct view_cache *c = viewcache_new(&x);
    struct view_frames want = { 0 };
    /* Twice, in another order the second time: a view is made once. */
    const struct view_frames *first[300];
    for (int32_t st = 0; st < 300; st++) {
        first[st] = viewcache_stack(c, st);
        ck_assert_ptr_nonnull(first[st]);
        view_stack(&x, &x.stacks[st], &want);
        same_view(first[st], &want);
    }
    for (int32_t st = 299; st >= 0; st--)
        ck_assert_ptr_eq(viewcache_stack(c, st), first[st]);
    ck_assert_uint_eq(first[0]->n, 0);
    ck_assert_ptr_null(viewcache_stack(c, -1));
    ck_assert_ptr_null(viewcache_stack(c, 300));
    free(want.v);
    viewcache_free(c);
    ext_destroy(&x);
}
END_TEST

/* The field-by-field reading of a frame (records.c's parse_frame). */
static int ref_frame(struct ext_store *x, struct slice s, struct frame_ref *o,
                     uint64_t *dangling)
{
    const char *colon = memchr(s.p, ':', s.n);
    uint64_t mid;
    if (!colon)
        return -1;
    struct slice mod = { s.p, (size_t)(colon - s.p) };
    struct slice off = { colon + 1, s.n - mod.n - 1 };
    if (parse_0xhex_u64(off, &o->off))
        return -1;
    if (mod.n == 1 && mod.p[0] == '-') {
        o->module = FRAME_NO_MODULE;
        return 0;
    }
    if (parse_dec_u64(mod, &mid))
        return -1;
    void **slot = u64map_get(&x->mid_index, mid);
    o->module = slot ? (int32_t)((uintptr_t)*slot - 1) : FRAME_UNKNOWN_MODULE;
    *dangling += slot == NULL;
    return 0;
}

/* A "#s" line of random fields: well formed frames, odd ones, whitespace
 * of every kind, sometimes more fields than a stack may hold. */
static size_t odd_record(unsigned *seed, char *line, size_t cap)
{
    static const char *const parts[] = {
        "0:0x1a",  "1:0xFF",  "2:0x10",   "-:0x7",   "00:0x1",  "0:0x",
        "0:0X1",   "0:1",     "x:0x1",    "0::0x1",  "0:0x1g",  "-1:0x1",
        "0:0x12345678901234567",          "12345678901234567890:0x1",
        "1234567890123456789:0x1",        "0:0xffffffffffffffff",
        "--:0x1",  "0",       ":0x1",     "0:0x1:",  "7:0x5",   "1:0x1\x01",
    };
    static const char spaces[] = " \t\v\f\r";
    size_t n = (size_t)snprintf(line, cap, "#s %u", rnd(seed) % 1000);
    size_t fields = rnd(seed) % 8 == 0 ? 250 + rnd(seed) % 20
                                       : rnd(seed) % 12;
    for (size_t i = 0; i < fields && n + 64 < cap; i++) {
        size_t w = 1 + rnd(seed) % 2;
        for (size_t k = 0; k < w; k++)
            line[n++] = spaces[rnd(seed) % 5];
        const char *p = parts[rnd(seed) % (sizeof parts / sizeof parts[0])];
        memcpy(line + n, p, strlen(p));
        n += strlen(p);
    }
    if (rnd(seed) % 2)
        line[n++] = ' ';
    line[n] = '\0';
    return n;
}

START_TEST(stack_records_read_in_one_pass)
{
    unsigned seed = (unsigned)ut_seed(11);
    static char line[8192];
    struct ext_store x;
    ext_init(&x);
    rec(&x, "#m 0 0x0 - /a");
    rec(&x, "#m 1 0x0 - /b");
    rec(&x, "#m 7 0x0 - /c");
    for (int iter = 0; iter < 3000; iter++) {
        size_t len = odd_record(&seed, line, sizeof line);
        struct slice f[2 + 256];
        size_t nf = split_fields(line, len, f, 2 + 256);
        struct frame_ref want[256];
        uint64_t n = 0, bad = 0, dangling = 0;
        for (size_t i = 2; i < nf; i++) {
            if (ref_frame(&x, f[i], &want[n], &dangling) == 0)
                n++;
            else
                bad++;
        }
        uint64_t bad0 = x.bad_records, dangling0 = x.dangling_refs;
        size_t stacks0 = x.nstacks;
        ext_record(&x, line, len, f, nf);
        ck_assert_uint_eq(x.nstacks, stacks0 + 1);
        const struct stack *s = &x.stacks[x.nstacks - 1];
        UT_CHECK(s->nframes == n, "%s: %u frames, want %" PRIu64, line,
                 s->nframes, n);
        ck_assert_uint_eq(x.bad_records - bad0, bad);
        ck_assert_uint_eq(x.dangling_refs - dangling0, dangling);
        for (size_t i = 0; i < n; i++)
            UT_CHECK(s->frames[i].module == want[i].module &&
                         s->frames[i].off == want[i].off,
                     "%s: frame %zu", line, i);
    }
    ext_destroy(&x);
}
END_TEST

/* parse_frame_field answers as the strict parsers do on the split
 * field, and ends where the field ends. */
START_TEST(frame_field_is_the_strict_parsers)
{
    static const char alphabet[] = "0123456789abcdefABCDEFx:-g \t\0\xff";
    unsigned seed = (unsigned)ut_seed(5);
    char buf[64];
    for (int iter = 0; iter < 200000; iter++) {
        size_t len = 1 + rnd(&seed) % 30;
        for (size_t i = 0; i < len; i++)
            buf[i] = alphabet[rnd(&seed) % (sizeof alphabet - 1)];
        if (rnd(&seed) % 2 && len > 4) { /* mostly well formed */
            size_t colon = 1 + rnd(&seed) % (len - 3);
            for (size_t i = 0; i < colon; i++)
                buf[i] = (char)('0' + rnd(&seed) % 10);
            buf[colon] = ':';
            buf[colon + 1] = '0';
            buf[colon + 2] = 'x';
        }
        if (perl_is_space((unsigned char)buf[0]))
            buf[0] = '1';
        struct slice f;
        split_fields(buf, len, &f, 1);
        const char *colon = memchr(f.p, ':', f.n);
        uint64_t want_mid = 0, want_off = 0, mid = 0, off = 0;
        int want = colon &&
                   !parse_dec_u64((struct slice){ f.p, (size_t)(colon - f.p) },
                                  &want_mid) &&
                   !parse_0xhex_u64((struct slice){ colon + 1,
                                                    f.n - (size_t)(colon - f.p) - 1 },
                                    &want_off);
        const char *end = NULL;
        int got = parse_frame_field(buf, buf + len, &mid, &off, &end);
        UT_CHECK(got == want, "iteration %d: %d, want %d", iter, got, want);
        if (got && want)
            UT_CHECK(mid == want_mid && off == want_off && end == f.p + f.n,
                     "iteration %d: values", iter);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("viewcache");
    TCase *t = tcase_create("viewcache");
    tcase_add_test(t, views_are_view_stack);
    tcase_add_test(t, stack_records_read_in_one_pass);
    tcase_add_test(t, frame_field_is_the_strict_parsers);
    suite_add_tcase(s, t);
    return s;
}
