/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_pictures.c - Check suite for what the HTML report and the folded
 * stacks are drawn from: the timeline (timeline.c) fed by the engine, the
 * folded output (folded.c) against a hand-checked log, the progress line's
 * text (progress.c) and the options.  The peak snapshot, the series and
 * the temporal intervals are compared with a brute-force model of the
 * same random logs.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "replay/engine.h"
#include "output/folded.h"
#include "options/options.h"
#include "output/progress.h"
#include "symbolize/symbolizer.h"
#include "replay/timeline.h"

#include "ut.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LOGS
#define LOGS "logs"
#endif

/* An engine with a timeline, its report thrown away. */
struct run {
    struct engine e;
    struct timeline tl;
    FILE *devnull;
};

static void run_start(struct run *r)
{
    r->devnull = fopen("/dev/null", "w");
    ck_assert_ptr_nonnull(r->devnull);
    engine_init(&r->e, NULL);
    tl_init(&r->tl);
    r->e.tl = &r->tl;
}

static void run_line(struct run *r, const char *line)
{
    engine_line(&r->e, line, strlen(line));
}

static void run_text(struct run *r, const char *text)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        engine_line(&r->e, p, len);
        p += len + (nl != NULL);
    }
}

static void run_finish(struct run *r)
{
    tl_finish(&r->tl, &r->e.table, r->e.nr);
}

static void run_end(struct run *r)
{
    tl_destroy(&r->tl);
    r->e.tl = NULL;
    engine_destroy(&r->e);
    fclose(r->devnull);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char *text = NULL;
    size_t n = 0;
    ck_assert(getdelim(&text, &n, '\0', f) > 0);
    fclose(f);
    return text;
}

static char *folded(struct run *r, enum folded_view v)
{
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    ck_assert_int_eq(folded_write(out, &r->e.ext, &r->tl, v), 0);
    fclose(out);
    return text;
}

/* The block of EXPECTED after the line "== NAME", up to the next "==". */
static char *expected_block(const char *expected, const char *name)
{
    char head[32];
    snprintf(head, sizeof head, "== %s\n", name);
    const char *p = strstr(expected, head);
    ck_assert_msg(p != NULL, "no block %s", name);
    p += strlen(head);
    const char *end = strstr(p, "== ");
    return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

START_TEST(hand_checked_log_folds_as_expected)
{
    static const char *const names[] = { "leaks", "peak", "all" };
    struct run r;
    char *log = slurp(LOGS "/hand.log");
    char *expected = slurp(LOGS "/hand.expected");

    sym_init();
    view_init(NULL);
    run_start(&r);
    run_text(&r, log);
    run_finish(&r);
    for (int i = 0; i < 3; i++) {
        enum folded_view v;
        ck_assert_int_eq(folded_parse_view(names[i], &v), 0);
        char *got = folded(&r, v), *want = expected_block(expected, names[i]);
        ck_assert_msg(strcmp(got, want) == 0, "--folded=%s:\n%s\nwanted:\n%s",
                      names[i], got, want);
        free(got);
        free(want);
    }
    /* The summary figures of the same log, by hand. */
    ck_assert_uint_eq(r.tl.peak_bytes, 4416);
    ck_assert_uint_eq(r.tl.peak_blocks, 3);
    ck_assert_uint_eq(r.tl.live_bytes, 123);
    ck_assert_uint_eq(r.tl.allocs, 7);
    ck_assert_uint_eq(r.tl.frees, 2);
    ck_assert_uint_eq(r.tl.alloc_bytes, 256 + 64 + 4096 + 32 + 16 + 8 + 3);
    ck_assert(r.tl.has_time);
    ck_assert_uint_eq(r.tl.t_last, 6000000); /* ns after the first #t */
    /* The peak (line 17) lies between the #t of lines 16 and 20. */
    ck_assert_uint_eq(r.tl.peak_line, 17);
    ck_assert_uint_eq(r.tl.peak_t, 2000000 + 2000000 / 4);
    run_end(&r);
    free(log);
    free(expected);
}
END_TEST

START_TEST(unknown_view_is_refused)
{
    enum folded_view v;
    ck_assert_int_ne(folded_parse_view("leak", &v), 0);
    ck_assert_int_ne(folded_parse_view("", &v), 0);
    ck_assert_int_eq(folded_parse_view("all", &v), 0);
    ck_assert_int_eq(v, FOLDED_ALL);
}
END_TEST

START_TEST(labels_cannot_break_the_format)
{
    char buf[64];
    struct view_frame f = { 0 };
    f.function = "operator;new\n(x)";
    ck_assert_str_eq(folded_label(&f, buf, sizeof buf), "operator_new_(x)");
    f.inlined = 1;
    ck_assert_str_eq(folded_label(&f, buf, sizeof buf),
                     "operator_new_(x) [inlined]");
    f.function = NULL;
    f.module = "/usr/lib/libz.so.1";
    f.off = 0x1a2b;
    ck_assert_str_eq(folded_label(&f, buf, sizeof buf), "libz.so.1+0x1a2b");
    f.module = NULL;
    ck_assert_str_eq(folded_label(&f, buf, sizeof buf), "0x1a2b");
}
END_TEST

/* ---- random logs against a brute-force model --------------------------- */

enum { STACKS = 40, SLOTS = 600, EVENTS = 30000 };

struct model_block {
    int live;
    unsigned stack;
    uint64_t size, line;
};

struct model {
    struct model_block slot[SLOTS];
    uint64_t live, peak;
    uint64_t peak_by_stack[STACKS + 1], live_by_stack[STACKS + 1];
    /* Every block ever, for the temporal queries. */
    struct {
        unsigned stack;
        uint64_t size, alloc_line, free_line; /* 0: never freed */
    } * all;
    size_t nall;
    uint64_t *live_after; /* live bytes after each line, ~0: no event */
    size_t nlines;
};

static void model_line(struct run *r, struct model *m)
{
    m->live_after[r->e.nr] = m->live;
    m->nlines = r->e.nr + 1;
}

static unsigned rnd(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

/* A log of EVENTS random allocations and frees over STACKS stacks, with a
 * "#t" every 97 lines; the model follows it. */
static void random_log(struct run *r, struct model *m, unsigned seed)
{
    char line[128];
    size_t *index = calloc(SLOTS, sizeof *index);

    memset(m, 0, sizeof *m);
    m->all = calloc(EVENTS, sizeof *m->all);
    m->live_after = malloc((2 * EVENTS + 100) * sizeof *m->live_after);
    memset(m->live_after, 0xff, (2 * EVENTS + 100) * sizeof *m->live_after);
    run_line(r, "= Start");
    run_line(r, "#v 1 pid=1");
    run_line(r, "#m 0 0x0 - /nonexistent/random");
    for (unsigned s = 1; s <= STACKS; s++) {
        snprintf(line, sizeof line, "#s %u 0:0x%x 0:0x%x 0:0x10", s,
                 0x1000 + s * 16, 0x100 + (s % 5) * 16);
        run_line(r, line);
    }
    for (unsigned i = 0; i < EVENTS; i++) {
        unsigned k = rnd(&seed) % SLOTS;
        struct model_block *b = &m->slot[k];
        if (r->e.nr % 97 == 0) {
            snprintf(line, sizeof line, "#t %u", 5000 + i * 1000);
            run_line(r, line);
            model_line(r, m);
        }
        if (b->live) {
            snprintf(line, sizeof line, "- 0x%x s%u", 0x10000 + k * 64,
                     b->stack);
            run_line(r, line);
            b->live = 0;
            m->live -= b->size;
            m->live_by_stack[b->stack] -= b->size;
            m->all[index[k]].free_line = r->e.nr;
            model_line(r, m);
        } else {
            b->live = 1;
            b->stack = 1 + rnd(&seed) % STACKS;
            b->size = 1 + rnd(&seed) % 5000;
            snprintf(line, sizeof line, "+ 0x%x 0x%llx s%u", 0x10000 + k * 64,
                     (unsigned long long)b->size, b->stack);
            run_line(r, line);
            b->line = r->e.nr;
            m->live += b->size;
            m->live_by_stack[b->stack] += b->size;
            index[k] = m->nall;
            m->all[m->nall].stack = b->stack;
            m->all[m->nall].size = b->size;
            m->all[m->nall].alloc_line = b->line;
            m->nall++;
            if (m->live > m->peak) {
                m->peak = m->live;
                memcpy(m->peak_by_stack, m->live_by_stack,
                       sizeof m->peak_by_stack);
            }
            model_line(r, m);
        }
    }
    run_line(r, "#t 99000000");
    run_line(r, "= End");
    free(index);
}

START_TEST(peak_snapshot_matches_a_full_copy)
{
    for (unsigned seed = 1; seed <= 5; seed++) {
        struct run r;
        struct model m;
        run_start(&r);
        random_log(&r, &m, seed);
        run_finish(&r);
        ck_assert_uint_eq(r.tl.peak_bytes, m.peak);
        ck_assert_uint_eq(r.tl.live_bytes, m.live);
        uint64_t sum = 0;
        for (unsigned s = 1; s <= STACKS; s++) {
            /* Timeline slot = stack index + 1; stack index = sid - 1. */
            const struct tl_stack *ts = &r.tl.stacks[s];
            ck_assert_uint_eq(ts->peak_bytes, m.peak_by_stack[s]);
            ck_assert_uint_eq(ts->live_bytes, m.live_by_stack[s]);
            sum += ts->peak_bytes;
        }
        ck_assert_uint_eq(sum, m.peak);
        free(m.all);
        free(m.live_after);
        run_end(&r);
    }
}
END_TEST

/* Live bytes over time: buckets cover the log in order, their maxima
 * reach the peak and never pass it, the last ends at the final value,
 * times grow and stay within the log's "#t" records. */
START_TEST(series_follows_the_log)
{
    struct run r;
    struct model m;
    run_start(&r);
    random_log(&r, &m, 7);
    run_finish(&r);
    size_t n = tl_nbuckets(&r.tl);
    ck_assert_uint_le(n, TL_BUCKETS);
    ck_assert_uint_gt(n, TL_BUCKETS / 4); /* merged, not collapsed */
    uint64_t top = 0, prev_line = 0, prev_t = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tl_bucket *b = &r.tl.buckets[i];
        ck_assert_uint_ge(b->live_max, b->live_end);
        ck_assert_uint_gt(b->line_end + 1, prev_line);
        ck_assert_uint_ge(b->t_end, prev_t);
        prev_line = b->line_end + 1;
        prev_t = b->t_end;
        if (b->live_max > top)
            top = b->live_max;
    }
    ck_assert_uint_eq(top, m.peak);
    /* Each bucket against the model: lines [k << shift, (k+1) << shift). */
    uint64_t value = 0;
    for (size_t line = 0, k = 0; k < n; k++) {
        uint64_t most = value; /* what it started with */
        for (; line < m.nlines && (line >> r.tl.shift) == k; line++) {
            if (m.live_after[line] != UINT64_MAX)
                value = m.live_after[line];
            if (value > most)
                most = value;
        }
        ck_assert_msg(r.tl.buckets[k].live_max == most,
                      "bucket %zu: max %llu, wanted %llu", k,
                      (unsigned long long)r.tl.buckets[k].live_max,
                      (unsigned long long)most);
        if (k + 1 < n)
            ck_assert_uint_eq(r.tl.buckets[k].live_end, value);
    }
    ck_assert_uint_eq(r.tl.buckets[n - 1].live_end, m.live);
    ck_assert_uint_eq(r.tl.buckets[n - 1].line_end, r.e.nr);
    ck_assert_uint_eq(prev_t, 99000000 - r.tl.t_origin);
    ck_assert_uint_eq(prev_t, r.tl.t_last);
    ck_assert_uint_le(r.tl.peak_t, r.tl.t_last);
    free(m.all);
    free(m.live_after);
    run_end(&r);
}
END_TEST

/* memray's temporal query from the intervals equals the same query over
 * every block: allocated in buckets [lo, hi], still live at the end of
 * hi. */
START_TEST(temporal_intervals_answer_like_every_block)
{
    unsigned seed = 11;
    struct run r;
    struct model m;
    run_start(&r);
    random_log(&r, &m, 3);
    run_finish(&r);
    unsigned shift = r.tl.shift;
    size_t n = tl_nbuckets(&r.tl);
    for (int q = 0; q < 300; q++) {
        unsigned lo = rnd(&seed) % n, hi = lo + rnd(&seed) % (n - lo);
        if (q == 0)
            lo = 0, hi = (unsigned)n - 1;
        uint64_t want[STACKS + 1] = { 0 }, got[STACKS + 1] = { 0 };
        for (size_t i = 0; i < m.nall; i++) {
            unsigned a = (unsigned)(m.all[i].alloc_line >> shift);
            uint64_t fl = m.all[i].free_line;
            if (a >= lo && a <= hi && (fl == 0 || (fl >> shift) > hi))
                want[m.all[i].stack] += m.all[i].size;
        }
        for (size_t i = 0; i < r.tl.niv; i++) {
            const struct tl_interval *v = &r.tl.iv[i];
            if (v->alloc >= lo && v->alloc <= hi &&
                (v->freed == TL_NEVER || v->freed > hi))
                got[v->stack] += v->bytes;
        }
        for (unsigned s = 1; s <= STACKS; s++)
            ck_assert_msg(got[s] == want[s],
                          "range [%u, %u] stack %u: %llu, wanted %llu", lo, hi,
                          s, (unsigned long long)got[s],
                          (unsigned long long)want[s]);
    }
    free(m.all);
    free(m.live_after);
    run_end(&r);
}
END_TEST

START_TEST(progress_line_text)
{
    char buf[160];
    progress_format(buf, sizeof buf, 50u << 20, 200u << 20, 2.0, NULL);
    ck_assert_str_eq(buf, "mtrace-check: 50.0 MiB of 200.0 MiB (25%), "
                          "25.0 MiB/s, 6 s left");
    progress_format(buf, sizeof buf, 3u << 10, 0, 1.0, NULL);
    ck_assert_str_eq(buf, "mtrace-check: 3.0 KiB read, 3.0 KiB/s");
    progress_format(buf, sizeof buf, 1, 1, 1.0, "resolving stacks");
    ck_assert_str_eq(buf, "mtrace-check: resolving stacks...");
}
END_TEST

static enum parse_result parse(struct options *o, int argc, const char **argv)
{
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    enum parse_result res = parse_options(argc, (char **)argv, o);
    fclose(stderr);
    stderr = saved;
    return res;
}

START_TEST(options_of_the_pictures)
{
    struct options o;
    const char *a1[] = { "mc", "--html", "out.html", "--folded=peak",
                         "-q", "log" };
    ck_assert_int_eq(parse(&o, 6, a1), OPT_RUN);
    ck_assert_str_eq(o.html, "out.html");
    ck_assert_int_eq(o.folded, 1);
    ck_assert_int_eq(o.folded_view, FOLDED_PEAK);
    ck_assert_int_eq(o.quiet, 1);
    ck_assert_int_eq(o.noperands, 1); /* BINARY or LOG: main.c decides */
    ck_assert_str_eq(o.operands[0], "log");
    const char *a2[] = { "mc", "--html=x.html", "--folded", "log" };
    ck_assert_int_eq(parse(&o, 4, a2), OPT_RUN);
    ck_assert_str_eq(o.html, "x.html");
    ck_assert_int_eq(o.folded_view, FOLDED_LEAKS);
    const char *a3[] = { "mc", "--folded=live", "log" };
    ck_assert_int_eq(parse(&o, 3, a3), OPT_USAGE_ERROR);
    const char *a4[] = { "mc", "log", "--html" };
    ck_assert_int_eq(parse(&o, 3, a4), OPT_USAGE_ERROR);
    const char *a5[] = { "mc", "--folded", "--json", "log" };
    ck_assert_int_eq(parse(&o, 4, a5), OPT_USAGE_ERROR);
}
END_TEST

static Suite *pictures_suite(void)
{
    Suite *s = suite_create("pictures");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, hand_checked_log_folds_as_expected);
    tcase_add_test(tc, unknown_view_is_refused);
    tcase_add_test(tc, labels_cannot_break_the_format);
    tcase_add_test(tc, peak_snapshot_matches_a_full_copy);
    tcase_add_test(tc, series_follows_the_log);
    tcase_add_test(tc, temporal_intervals_answer_like_every_block);
    tcase_add_test(tc, progress_line_text);
    tcase_add_test(tc, options_of_the_pictures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    static const ut_suite_fn suites[] = { pictures_suite };
    return ut_main(1, suites);
}
