/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outputs.c - the table of writers and the calls around the replay (see
 * outputs.h).
 *
 * How to add an output format: write one file beside this one that
 * defines a `const struct writer_ops` (writer.h: a findings() function,
 * and warning() if it streams), declare it in writer.h, and add one row
 * to the table below saying which option chooses it; the option itself
 * is a row of the option table (options.c).  Nothing else changes: the
 * writer reads everything from the findings (findings.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE /* open_memstream */
#include "output/outputs.h"
#include "base/diag.h"
#include "output/cireport.h"
#include "output/progress.h"
#include "output/treesum.h"
#include "output/runpage.h"
#include "replay/livetotals.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_folded(const struct options *o)
{
    return o->folded;
}

static int is_json(const struct options *o)
{
    return o->json;
}

static int always(const struct options *o)
{
    (void)o;
    return 1;
}

static int is_html(const struct options *o)
{
    return o->html != NULL && !runpage_active();
}

/* --html with several logs: the run's page (runpage.h). */
static int is_runpage(const struct options *o)
{
    return o->html != NULL && runpage_active();
}

static int is_valgrind(const struct options *o)
{
    return o->valgrind != 0;
}

static int is_xml(const struct options *o)
{
    return o->xml != NULL;
}

static int is_pprof(const struct options *o)
{
    return o->pprof != NULL;
}

/* The writers.  The report on standard output is the first "report" row
 * chosen; every other row chosen writes beside it, in this order. */
static const struct output_row {
    const struct writer_ops *ops;
    int (*chosen)(const struct options *o);
    int report;        /* writes the report on standard output */
    int timeline;      /* needs the timeline (timeline.h) */
    const char *phase; /* the progress line while it writes, or NULL */
} table[] = {
    { &folded_writer, is_folded, 1, 1, NULL },
    { &json_writer, is_json, 1, 0, NULL },
    { &valgrind_writer, is_valgrind, 1, 0, NULL },
    { &text_writer, always, 1, 0, NULL },
    { &html_writer, is_html, 0, 1, "writing the HTML report" },
    { &runpage_writer, is_runpage, 0, 1, "writing the HTML report" },
    { &pprof_writer, is_pprof, 0, 1, "writing the profile" },
    { &vgxml_writer, is_xml, 0, 0, NULL },
    { &ci_writer, ci_wanted, 0, 0, NULL },
};
enum { NROWS = sizeof table / sizeof table[0] };

static const struct output_row *report_row(const struct options *o)
{
    for (size_t i = 0; i < NROWS; i++)
        if (table[i].report && table[i].chosen(o))
            return &table[i];
    return &table[NROWS - 1]; /* not reached: text is always chosen */
}

static const struct output_row *row_of(const struct writer_ops *ops)
{
    for (size_t i = 0; i < NROWS; i++)
        if (table[i].ops == ops)
            return &table[i];
    return NULL;
}

void outputs_list_begin(const struct options *opt, const char *binary, int n)
{
    const struct writer_ops *ops = report_row(opt)->ops;
    if (ops->list_begin)
        ops->list_begin(opt, binary, n);
}

void outputs_list_item(const struct options *opt, const char *log, int i,
                       int n)
{
    const struct writer_ops *ops = report_row(opt)->ops;
    if (ops->list_item)
        ops->list_item(opt, log, i, n);
}

void outputs_list_end(const struct options *opt, int n)
{
    const struct writer_ops *ops = report_row(opt)->ops;
    if (ops->list_end)
        ops->list_end(opt, n);
}

void outputs_refused(const struct options *opt, const char *log,
                     const char *why, int in_list)
{
    const struct writer_ops *ops = report_row(opt)->ops;
    if (in_list && ops->refused)
        ops->refused(NULL, log, why);
}

/* The engine's warnings, to every writer that streams them. */
static void emit(void *ctx, const struct warning *wn, int trace)
{
    struct outputs *x = ctx;

    if (trace)
        outputs_release(x, 1);
    else if (!x->held &&
             !(x->held = open_memstream(&x->held_text, &x->held_len)))
        diag_fatal(NULL, "out of memory (holding warnings)");
    for (size_t i = 0; i < x->n; i++) {
        struct writer *w = &x->w[i];
        if (!w->ops->warning)
            continue;
        FILE *out = w->out;
        if (!trace)
            w->out = x->held;
        w->ops->warning(w, wn);
        w->out = out;
    }
}

static void add_writer(struct outputs *x, const struct output_row *row,
                       FILE *out)
{
    struct writer *w = &x->w[x->n++];
    memset(w, 0, sizeof *w);
    w->ops = row->ops;
    w->opt = x->opt;
    w->out = out;
    w->log = x->opt->log;
    w->binary = x->opt->binary;
    x->timeline |= row->timeline;
}

void outputs_begin(struct outputs *x, const struct options *opt,
                   struct engine *e, FILE *report, int log_fd)
{
    struct stat st;
    uint64_t total = 0;

    memset(x, 0, sizeof *x);
    x->opt = opt;
    const struct output_row *first = report_row(opt);
    add_writer(x, first, report);
    for (size_t i = 0; i < NROWS && x->n < OUTPUTS_MAX; i++)
        if (!table[i].report && table[i].chosen(opt))
            add_writer(x, &table[i], report);
    e->warn = (struct warning_sink){ emit, x };
    if (x->timeline) {
        tl_init(&x->tl);
        x->tl.sample_rate = &e->ext.sample_rate; /* its estimates */
        e->tl = &x->tl;
    }
    if (fstat(log_fd, &st) == 0 && S_ISREG(st.st_mode))
        total = (uint64_t)st.st_size;
    progress_start(&e->bytes, total, opt->quiet);
}

void outputs_release(struct outputs *x, int keep)
{
    if (!x->held)
        return;
    fclose(x->held); /* sets held_text and held_len */
    if (keep)
        fwrite(x->held_text, 1, x->held_len, x->w[0].out);
    free(x->held_text);
    x->held = NULL;
    x->held_text = NULL;
}

void outputs_replayed(struct outputs *x)
{
    (void)x;
    progress_phase("resolving stacks");
}

/* Release what outputs_begin took. */
static void finish(struct outputs *x, struct engine *e)
{
    outputs_release(x, 0);
    if (x->timeline) {
        e->tl = NULL;
        tl_destroy(&x->tl);
    }
    e->warn = (struct warning_sink){ NULL, NULL };
    progress_stop();
}

int outputs_end(struct outputs *x, struct engine *e,
                const struct class_options *co, int *failing)
{
    struct findings f;
    int err = 0;

    if (x->timeline)
        tl_finish(&x->tl, &e->table, e->nr);
    findings_build(&f, e, x->opt->log, x->opt->binary, co,
                   x->timeline ? &x->tl : NULL);
    *failing = f.failing;
    if (treesum_active()) /* one of several logs: its row of the summary */
        treesum_findings(&f);
    for (size_t i = 0; i < x->n; i++) {
        const struct output_row *row = row_of(x->w[i].ops);
        if (row && row->phase)
            progress_phase(row->phase);
        if (x->w[i].ops->findings(&x->w[i], &f) != 0)
            err = -1;
        if (i == 0) /* after the report, as the report's last word */
            logend_warn(x->opt->log, &e->end, e->ext.extended);
    }
    if (x->timeline && e->ext.live_log)
        livetotals_note(x->opt->log);
    findings_destroy(&f);
    finish(x, e);
    return err;
}

void outputs_drop(struct outputs *x, struct engine *e)
{
    finish(x, e);
}

int outputs_diff(const struct options *opt, const struct findings_diff *d,
                 FILE *report)
{
    int err = 0;
    const struct output_row *first = report_row(opt);
    for (size_t i = 0; i < NROWS; i++) {
        const struct output_row *row = &table[i];
        if (row != first && (row->report || !row->chosen(opt)))
            continue;
        struct writer w = { .ops = row->ops, .opt = opt, .out = report,
                            .log = opt->log, .binary = opt->binary };
        if (row->ops->diff && row->ops->diff(&w, d) != 0)
            err = -1;
    }
    return err;
}
