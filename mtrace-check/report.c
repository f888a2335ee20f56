/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.c - text (Perl-identical) and JSON output (see report.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "report.h"
#include "classreport.h"
#include "diag.h"
#include "json.h"

#include <inttypes.h>
#include <stdlib.h>

static void put(FILE *out, struct slice s)
{
    fwrite(s.p, 1, s.n, out);
}

void report_begin(struct report *r, FILE *out, int json, const char *log,
                  const char *binary)
{
    r->out = out;
    r->json = json;
    r->nwarnings = r->nleaks = 0;
    r->sample_rate = 0;
    r->verdicts = 0;
    r->log = log;
    r->binary = binary;
    r->begun = 0;
    r->held = NULL;
    r->held_text = NULL;
    r->held_len = 0;
}

/* The JSON object's head, before its first member is written. */
static void json_head(struct report *r)
{
    if (!r->json || r->begun)
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

/* The four printf formats of the Perl script, in C: %#x behaves the same
 * (no "0x" for zero, zero padding counts the prefix). */
static void text_warning(FILE *out, const struct warning *w)
{
    switch (w->kind) {
    case WARN_ALLOC_DUPLICATE:
        fprintf(out, "+ %#018" PRIx64 " Alloc %" PRIu64 " duplicate: ",
                w->addr_value, w->line);
        put(out, w->was);
        putc(' ', out);
        put(out, w->where);
        break;
    case WARN_FREE_NEVER_ALLOCATED:
    case WARN_REALLOC_NEVER_ALLOCATED:
        fprintf(out, "- %#018" PRIx64 " %s %" PRIu64 " was never alloc'd ",
                w->addr_value,
                w->kind == WARN_FREE_NEVER_ALLOCATED ? "Free" : "Realloc",
                w->line);
        put(out, w->where);
        break;
    case WARN_REALLOC_DUPLICATE:
        fprintf(out,
                "+ %#018" PRIx64 " Realloc %" PRIu64 " duplicate: %#010" PRIx64
                " ",
                w->addr_value, w->line, w->size);
        put(out, w->was);
        putc(' ', out);
        put(out, w->where);
        break;
    }
    putc('\n', out);
}

static void json_warning(struct report *r, const struct warning *w)
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

void report_release(struct report *r, int keep)
{
    if (!r->held)
        return;
    fclose(r->held); /* sets held_text and held_len */
    if (keep)
        fwrite(r->held_text, 1, r->held_len, r->out);
    free(r->held_text);
    r->held = NULL;
    r->held_text = NULL;
}

void report_warning(struct report *r, const struct warning *w, int trace)
{
    FILE *out = r->out;

    if (trace)
        report_release(r, 1);
    else if (!r->held && !(r->held = open_memstream(&r->held_text,
                                                    &r->held_len)))
        diag_fatal(NULL, "out of memory (holding warnings)");
    if (!trace)
        r->out = r->held;
    json_head(r);
    if (r->json)
        json_warning(r, w);
    else
        text_warning(r->out, w);
    r->out = out;
    r->nwarnings++;
}

void report_leaks_begin(struct report *r)
{
    json_head(r);
    if (r->json)
        fputs("],\n\"leaks\":[", r->out);
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

void report_leak(struct report *r, const struct leak *l)
{
    FILE *out = r->out;

    /* A sampled log's blocks are samples: the groups below tell what they
     * stand for; listing them as "not freed" would call them leaks. */
    if (r->sample_rate && !r->json) {
        r->nleaks++;
        return;
    }

    if (r->json) {
        fputs(r->nleaks ? ",\n{\"address\":" : "\n{\"address\":", out);
        json_string(out, l->addr);
        fprintf(out, ",\"size\":%" PRIu64 ",\"line\":%" PRIu64 ",\"caller\":",
                l->size, l->line);
        json_string(out, l->caller);
        fputs(",\"stack\":", out);
        report_json_frames(out, l->frames);
        if (l->verdict) {
            fprintf(out, ",\"class\":\"%s\",\"suppressed_by\":", l->verdict);
            json_cstring(out, l->suppressed_by);
        }
        putc('}', out);
    } else if (!r->verdicts) {
        if (r->nleaks == 0)
            fputs("\nMemory not freed:\n-----------------\n"
                  "           Address     Size     Caller\n",
                  out);
        fprintf(out, "%#018" PRIx64 " %#8" PRIx64 "  at ", l->addr_value,
                l->size);
        put(out, l->caller);
        putc('\n', out);
    }
    r->nleaks++;
}

void report_leaks_end(struct report *r)
{
    if (r->json)
        fputs("],\n\"groups\":[", r->out);
    else if (r->sample_rate)
        fprintf(r->out,
                "\nSampled log: about one block per %" PRIu64
                " bytes allocated was recorded.\n"
                "%d recorded blocks were not freed; the figures below are "
                "estimates, not exact leaks.\n",
                r->sample_rate, r->nleaks);
    else if (r->nleaks == 0 && !r->verdicts)
        fputs("No memory leaks.\n", r->out);
}

void report_text_frame(FILE *out, size_t k, const struct view_frame *v)
{
    fprintf(out, "    #%zu %s at %s:", k, v->function ? v->function : "??",
            v->file ? v->file : "??");
    if (v->line)
        fprintf(out, "%u", v->line);
    else
        putc('?', out);
    if (v->module)
        fprintf(out, " (%s+%#" PRIx64 ")", v->module, v->off);
    else if (v->unknown_module)
        fprintf(out, " (unknown module+%#" PRIx64 ")", v->off);
    else
        fprintf(out, " (%#" PRIx64 ")", v->off);
    fputs(v->inlined ? " [inlined]\n" : "\n", out);
}

static void text_groups(FILE *out, const struct leak_group *g, size_t n,
                        uint64_t sample_rate)
{
    if (n == 0)
        return;
    fputs(sample_rate ? "\nEstimated memory not freed, grouped by allocation "
                        "stack, largest first:\n"
                      : "\nLeaks grouped by allocation stack, largest first:\n",
          out);
    for (size_t i = 0; i < n; i++) {
        if (sample_rate)
            fprintf(out,
                    "\n~%" PRIu64 " bytes in ~%" PRIu64
                    " blocks (estimated from %" PRIu64
                    " recorded) allocated from:\n",
                    g[i].bytes, g[i].blocks, g[i].recorded);
        else
            fprintf(out,
                    "\n%" PRIu64 " bytes in %" PRIu64
                    " blocks allocated from:\n",
                    g[i].bytes, g[i].blocks);
        if (!g[i].frames) {
            fputs("    (no stack recorded)\n", out);
            continue;
        }
        if (g[i].frames->n == 0)
            fputs("    (empty stack)\n", out);
        for (size_t k = 0; k < g[i].frames->n; k++)
            report_text_frame(out, k, &g[i].frames->v[k]);
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

void report_groups(struct report *r, const struct leak_group *g, size_t n)
{
    if (r->json)
        json_groups(r->out, g, n);
    else if (!r->verdicts)
        text_groups(r->out, g, n, r->sample_rate);
}

void report_end(struct report *r, const struct totals *t)
{
    if (!r->json)
        return;
    fprintf(r->out,
            "],\n\"totals\":{\"lines\":%" PRIu64 ",\"warnings\":%" PRIu64
            ",\"leaked_bytes\":%" PRIu64 ",\"leaked_blocks\":%" PRIu64
            ",\"bad_records\":%" PRIu64 ",\"dangling_refs\":%" PRIu64,
            t->lines, t->warnings, t->leaked_bytes, t->leaked_blocks,
            t->bad_records, t->dangling_refs);
    if (t->classes)
        class_sums_json(r->out, t->classes);
    fprintf(r->out, "},\n\"extended\":%s,\"sample_rate\":%" PRIu64,
            t->extended ? "true" : "false", r->sample_rate);
    logend_json(r->out, t->end, t->extended, t->held_blocks, t->held_bytes);
    fputs("}\n", r->out);
}
