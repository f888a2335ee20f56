/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jsonout.c - the JSON report: one object per log, schema in doc/json.md
 * and mtrace-check(1); several logs make a "logs" list.  The object's
 * head is written with its first member, so that a file that turns out
 * not to be a trace prints nothing.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/json.h"
#include "output/resout.h"
#include "output/writer.h"
#include "output/growthjson.h"

#include <inttypes.h>

/* The JSON object's head, before its first member is written. */
static void json_head(struct writer *r)
{
    if (r->begun)
        return;
    r->begun = 1;
    fputs("{\"tool\":\"mtrace-check\",\"schema\":1,\"log\":", r->out);
    json_cstring(r->out, r->log);
    fputs(",\"binary\":", r->out);
    json_cstring(r->out, r->binary);
    fputs(",\n\"warnings\":[", r->out);
}

static const char *kind_name(enum warn_kind k)
{
    switch (k) {
    case WARN_ALLOC_DUPLICATE:
        return "alloc-duplicate";
    case WARN_FREE_NEVER_ALLOCATED:
        return "free-never-allocated";
    case WARN_REALLOC_NEVER_ALLOCATED:
        return "realloc-never-allocated";
    case WARN_REALLOC_DUPLICATE:
        return "realloc-duplicate";
    }
    return "unknown";
}

static void json_warning(struct writer *r, const struct warning *w)
{
    FILE *out = r->out;

    fputs(r->nwarnings ? ",\n" : "\n", out);
    fprintf(out, "{\"line\":%" PRIu64 ",\"kind\":\"%s\",\"address\":", w->line,
            kind_name(w->kind));
    json_string(out, w->addr);
    if (w->kind == WARN_REALLOC_DUPLICATE)
        fprintf(out, ",\"size\":%" PRIu64, w->size);
    if (w->kind == WARN_ALLOC_DUPLICATE || w->kind == WARN_REALLOC_DUPLICATE) {
        fputs(",\"first_caller\":", out);
        json_string(out, w->was);
    }
    fputs(",\"caller\":", out);
    json_string(out, w->where);
    putc('}', out);
}

static void warning(struct writer *w, const struct warning *wn)
{
    json_head(w);
    json_warning(w, wn);
    w->nwarnings++;
}

void report_json_frames(FILE *out, const struct view_frames *f)
{
    putc('[', out);
    for (size_t i = 0; f && i < f->n; i++) {
        const struct view_frame *v = &f->v[i];
        fputs(i ? ",{\"function\":" : "{\"function\":", out);
        json_cstring(out, v->function);
        fputs(",\"file\":", out);
        json_cstring(out, v->file);
        if (v->line)
            fprintf(out, ",\"line\":%u", v->line);
        else
            fputs(",\"line\":null", out);
        fputs(",\"module\":", out);
        json_cstring(out, v->module);
        fputs(",\"offset\":", out);
        json_hex(out, v->off);
        fprintf(out, ",\"inlined\":%s}", v->inlined ? "true" : "false");
    }
    putc(']', out);
}

static void json_leaks(FILE *out, const struct findings *f)
{
    for (size_t i = 0; i < f->nleaks; i++) {
        struct leak l;
        findings_leak(f, i, 1, &l);
        fputs(i ? ",\n{\"address\":" : "\n{\"address\":", out);
        json_string(out, l.addr);
        fprintf(out, ",\"size\":%" PRIu64 ",\"line\":%" PRIu64 ",\"caller\":",
                l.size, l.line);
        json_string(out, l.caller);
        fputs(",\"stack\":", out);
        report_json_frames(out, l.frames);
        if (l.verdict) {
            fprintf(out, ",\"class\":\"%s\",\"suppressed_by\":", l.verdict);
            json_cstring(out, l.suppressed_by);
        }
        putc('}', out);
    }
}

static void json_groups(FILE *out, const struct leak_group *g, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out,
                "%s{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 ",\"stack_id\":",
                i ? ",\n" : "\n", g[i].bytes, g[i].blocks);
        if (g[i].stack >= 0)
            fprintf(out, "%" PRIu64, g[i].sid);
        else
            fputs("null", out);
        fputs(",\"frames\":", out);
        report_json_frames(out, g[i].frames);
        putc('}', out);
    }
}

/* The members "scan", "suppressions", "loss_records", after "groups". */
static void json_classes(const struct findings *f, FILE *out)
{
    const struct verdicts *v = f->verdicts;
    fputs("],\n\"scan\":{\"trigger\":", out);
    json_cstring(out, v->last.trigger);
    fprintf(out,
            ",\"scans\":%" PRIu64 ",\"threads\":%" PRIu64
            ",\"stopped\":%" PRIu64 ",\"unstopped\":%" PRIu64
            ",\"bytes_scanned\":%" PRIu64
            ",\"seconds\":%.6f},\n\"suppressions\":[",
            v->scans, v->last.threads, v->last.stopped, v->last.unstopped,
            v->last.scanned, v->last.us / 1e6);
    const struct suppressions *s = f->supp;
    for (size_t i = 0; s && i < s->n; i++) {
        fputs(i ? ",\n{\"pattern\":" : "\n{\"pattern\":", out);
        json_cstring(out, s->s[i].pattern);
        fprintf(out, ",\"blocks\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
                s->s[i].blocks, s->s[i].bytes);
    }
    fputs("],\n\"loss_records\":[", out);
    for (size_t i = 0, k = 0; i < f->nrecords; i++) {
        fputs(k++ ? ",\n" : "\n", out);
        report_json_record(out, f, &f->records[i]);
    }
}

void report_json_record(FILE *out, const struct findings *f,
                        const struct loss_record *r)
{
    report_json_record_open(out, f, r);
    putc('}', out);
}

void report_json_record_open(FILE *out, const struct findings *f,
                             const struct loss_record *r)
{
    fprintf(out,
            "{\"class\":\"%s\",\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64
            ",\"indirect_bytes\":%" PRIu64 ",\"suppressed_by\":",
            class_name(r->cls), r->bytes, r->blocks, r->indirect);
    json_cstring(out, r->suppressed_by);
    if (r->kind != KIND_MALLOC) /* absent: malloc's (doc/json.md) */
        fprintf(out, ",\"kind\":\"%s\"", block_kind_name(r->kind));
    fprintf(out, ",\"fingerprint\":\"%s\"", r->fingerprint);
    if (f->baseline)
        fprintf(out, ",\"baseline\":%s", r->baseline ? "true" : "false");
    if (f->has_previous_scan && r->cls == CLASS_DEFINITE)
        fprintf(out, ",\"new_since_previous\":%s",
                r->new_since_previous ? "true" : "false");
    fputs(",\"stack_id\":", out);
    if (r->stack >= 0)
        fprintf(out, "%" PRIu64, r->sid);
    else
        fputs("null", out);
    fputs(",\"frames\":", out);
    report_json_frames(out, r->frames);
    report_json_block(out, r);
}

static void class_sums_json(FILE *out, const struct class_sums *s)
{
    fputs(",\"classes\":{", out);
    for (int c = CLASS_COUNT - 1; c >= 0; c--)
        fprintf(out, "\"%s\":{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 "},",
                class_key((enum leak_class)c), s->sum[c].bytes,
                s->sum[c].blocks);
    fprintf(out,
            "\"suppressed\":{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64 "}}",
            s->suppressed.bytes, s->suppressed.blocks);
}

static void logend_json(FILE *out, const struct log_end *end, int extended,
                 uint64_t held_blocks, uint64_t held_bytes)
{
    if (!extended) {
        fputs(",\n\"complete\":null,\"end\":null", out);
        return;
    }
    fprintf(out, ",\n\"complete\":%s,\"end\":", end->seen ? "true" : "false");
    if (!end->seen) {
        fputs("null", out);
        return;
    }
    fputs("{\"reason\":", out);
    json_cstring(out, end->word);
    fprintf(out, ",\"line\":%" PRIu64, end->line);
    if (end->reason == END_SIGNAL)
        fprintf(out, ",\"signal\":%d", end->sig);
    if (end->reason == END_EXEC)
        fprintf(out, ",\"held_blocks\":%" PRIu64 ",\"held_bytes\":%" PRIu64,
                held_blocks, held_bytes);
    putc('}', out);
}

static void json_totals(FILE *out, const struct findings *f)
{
    const struct totals *t = &f->totals;
    fprintf(out,
            "],\n\"totals\":{\"lines\":%" PRIu64 ",\"warnings\":%" PRIu64
            ",\"leaked_bytes\":%" PRIu64 ",\"leaked_blocks\":%" PRIu64
            ",\"bad_records\":%" PRIu64 ",\"dangling_refs\":%" PRIu64,
            t->lines, t->warnings, t->leaked_bytes, t->leaked_blocks,
            t->bad_records, t->dangling_refs);
    if (t->classes)
        class_sums_json(out, t->classes);
    fprintf(out, "},\n\"extended\":%s,\"sample_rate\":%" PRIu64,
            t->extended ? "true" : "false", f->sample_rate);
    logend_json(out, t->end, t->extended, t->held_blocks, t->held_bytes);
    res_json(out, f);
    rss_json(out, f);
    fputs("}\n", out);
}

static int findings(struct writer *w, const struct findings *f)
{
    json_head(w);
    fputs("],\n\"leaks\":[", w->out);
    json_leaks(w->out, f);
    fputs("],\n\"groups\":[", w->out);
    json_groups(w->out, f->groups, f->ngroups);
    if (f->classified)
        json_classes(f, w->out);
    growth_json(w->out, f);
    json_totals(w->out, f);
    return 0;
}

/* A log of a list that could not be checked: an entry saying why. */
static void refused(struct writer *w, const char *log, const char *why)
{
    (void)w;
    fputs("{\"log\":", stdout);
    json_cstring(stdout, log);
    fputs(",\"error\":", stdout);
    json_cstring(stdout, why);
    fputs("}\n", stdout);
}

static void list_begin(const struct options *o, const char *binary, int n)
{
    (void)o;
    (void)n;
    fputs("{\"tool\":\"mtrace-check\",\"schema\":1,\"binary\":", stdout);
    json_cstring(stdout, binary);
    fputs(",\"logs\":[\n", stdout);
}

static void list_item(const struct options *o, const char *log, int i, int n)
{
    (void)o;
    (void)log;
    (void)n;
    if (i > 0)
        fputs(",\n", stdout);
}

static void list_end(const struct options *o, int n)
{
    (void)o;
    (void)n;
    fputs("]}\n", stdout);
}

const struct writer_ops json_writer = {
    .diff = json_diff,
    .name = "json",
    .warning = warning,
    .findings = findings,
    .refused = refused,
    .list_begin = list_begin,
    .list_item = list_item,
    .list_end = list_end,
};
