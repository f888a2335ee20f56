/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.c - the text report: byte for byte what glibc's Perl checker
 * prints (warnings as they happen, then the leak table or "No memory
 * leaks."), followed for extended logs by the leaks grouped by allocation
 * stack, or for a log with verdicts by memcheck's loss records and LEAK
 * SUMMARY, and by what the log's end says.  Strings are byte slices and
 * are written as they are; NUL bytes in a log survive.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE /* sigabbrev_np */
#include "output/writer.h"
#include "mtrace-format.h"
#include "output/growthtext.h"
#include "output/vgreport.h"
#include "output/treesum.h"
#include "output/resout.h"

#include <inttypes.h>
#include <string.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void put(FILE *out, struct slice s)
{
    fwrite(s.p, 1, s.n, out);
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

static void warning(struct writer *w, const struct warning *wn)
{
    text_warning(w->out, wn);
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

/* Decimal with thousands separators, as valgrind prints sizes. */
static const char *commas(uint64_t v, char *buf)
{
    return vg_commas(v, buf);
}

static int listed(const struct findings *f, const struct loss_record *r)
{
    return r->suppressed < 0 &&
           (r->cls != CLASS_REACHABLE || f->show_reachable);
}

/* "  fingerprint FP", and with a baseline whether it is in it. */
static void text_fingerprint(FILE *out, const struct findings *f,
                             const struct loss_record *r)
{
    fprintf(out, "  fingerprint %s", r->fingerprint);
    if (f->baseline)
        fputs(r->baseline ? " (in the baseline)" : " (new: not in the baseline)",
              out);
    if (f->has_previous_scan && r->new_since_previous)
        fputs(" (new since the previous scan)", out);
    putc('\n', out);
}

/* "" for malloc's blocks (the report as it always was), "pool " or
 * "mmap " for the others (xblocks.h). */
static const char *kind_words(enum block_kind k)
{
    return k == KIND_POOL ? "pool " : k == KIND_MMAP ? "mmap " : "";
}


/* A loss record's frames ("    #K FUNC at FILE:LINE"), or why it has none,
 * then what its block holds. */
void report_text_stack(FILE *out, const struct loss_record *r)
{
    if (r->frames == NULL)
        fputs("    (no stack recorded)\n", out);
    else if (r->frames->n == 0)
        fputs("    (empty stack)\n", out);
    for (size_t i = 0; r->frames && i < r->frames->n; i++)
        report_text_frame(out, i, &r->frames->v[i]);
    report_text_block(out, r);
}

static void text_record(FILE *out, const struct findings *f,
                        const struct loss_record *r, size_t k, size_t total)
{
    char a[32], b[32], c[32], d[32];
    if (r->cls == CLASS_DEFINITE && r->indirect)
        fprintf(out, "\n%s (%s direct, %s indirect) bytes",
                commas(add_sat(r->bytes, r->indirect), a), commas(r->bytes, b),
                commas(r->indirect, c));
    else
        fprintf(out, "\n%s bytes", commas(r->bytes, a));
    if (r->cls == CLASS_UNKNOWN)
        fprintf(out,
                " in %s %sblocks are not classified (allocated after the "
                "last scan) in loss record %zu of %zu\n",
                commas(r->blocks, d), kind_words(r->kind), k, total);
    else
        fprintf(out, " in %s %sblocks are %s in loss record %zu of %zu\n",
                commas(r->blocks, d), kind_words(r->kind), class_words(r->cls),
                k, total);
    report_text_stack(out, r);
    text_fingerprint(out, f, r);
}

static void text_scan_line(const struct findings *f, FILE *out)
{
    const struct verdicts *v = f->verdicts;
    char a[32];
    fprintf(out,
            "\nReachability verdicts from the scan at %s (scan %" PRIu64
            " of the log): %" PRIu64 " threads, %" PRIu64
            " other threads stopped, %s bytes scanned in %.3f s\n",
            v->last.trigger[0] ? v->last.trigger : "?", v->scans,
            v->last.threads, v->last.stopped, commas(v->last.scanned, a),
            v->last.us / 1e6);
    if (v->last.unstopped)
        fprintf(out,
                "(%" PRIu64 " threads could not be stopped: their whole "
                "stacks were scanned and the verdicts may be less exact)\n",
                v->last.unstopped);
}

static void text_suppressions(const struct findings *f, FILE *out)
{
    const struct suppressions *s = f->supp;
    int any = 0;
    for (size_t i = 0; s && i < s->n; i++)
        any |= s->s[i].blocks != 0;
    if (!any)
        return;
    fputs("\n-----------------------------------------------------\n"
          "Suppressions used:\n  count      bytes template\n",
          out);
    for (size_t i = 0; i < s->n; i++)
        if (s->s[i].blocks)
            fprintf(out, "%7" PRIu64 " %10" PRIu64 " %s%s\n", s->s[i].blocks,
                    s->s[i].bytes, s->s[i].vg ? "" : "leak:",
                    s->s[i].pattern); /* valgrind's: its name */
    fputs("-----------------------------------------------------\n", out);
}

static void text_summary_line(FILE *out, const char *words,
                              const struct class_sum *s)
{
    char a[32], b[32];
    fprintf(out, "%18s: %s bytes in %s blocks\n", words, commas(s->bytes, a),
            commas(s->blocks, b));
}

/* What the baseline knew, and each new loss record by name. */
static void text_baseline(const struct findings *f, FILE *out)
{
    size_t known = 0, fresh = 0;
    for (size_t i = 0; i < f->nrecords; i++)
        if (listed(f, &f->records[i]))
            f->records[i].baseline ? known++ : fresh++;
    fprintf(out, "\nBASELINE %s: %zu loss records in it, %zu new\n",
            f->baseline->path, known, fresh);
    for (size_t i = 0, k = 0; i < f->nrecords; i++) {
        const struct loss_record *r = &f->records[i];
        if (!listed(f, r))
            continue;
        k++; /* its number in the list above */
        if (r->baseline)
            continue;
        const struct view_frame *v = fp_own_frame(r->frames);
        fprintf(out, "  new: %s %s, %" PRIu64 " bytes in loss record %zu",
                r->fingerprint, class_words(r->cls), r->bytes, k);
        if (v && v->function)
            fprintf(out, ", %s", v->function);
        if (v && v->file)
            fprintf(out, " (%s:%u)", v->file, v->line);
        putc('\n', out);
    }
}

/* A log with verdicts: memcheck's loss records and LEAK SUMMARY. */
static void text_classes(const struct findings *f, FILE *out)
{
    text_scan_line(f, out);
    size_t total = 0, k = 0;
    for (size_t i = 0; i < f->nrecords; i++)
        total += listed(f, &f->records[i]);
    for (size_t i = 0; i < f->nrecords; i++)
        if (listed(f, &f->records[i]))
            text_record(out, f, &f->records[i], ++k, total);
    const struct class_sum *r = &f->sums.sum[CLASS_REACHABLE];
    if (r->blocks && !f->show_reachable) {
        char a[32], b[32];
        fprintf(out,
                "\nstill reachable: %s bytes in %s blocks "
                "(--show-reachable lists them)\n",
                commas(r->bytes, a), commas(r->blocks, b));
    }
    text_suppressions(f, out);
    if (f->nrecords == 0) {
        fputs("\nAll heap blocks were freed -- no leaks are possible\n", out);
        return;
    }
    fputs("\nLEAK SUMMARY:\n", out);
    const struct class_sum *sum = f->sums.sum;
    text_summary_line(out, "definitely lost", &sum[CLASS_DEFINITE]);
    text_summary_line(out, "indirectly lost", &sum[CLASS_INDIRECT]);
    text_summary_line(out, "possibly lost", &sum[CLASS_POSSIBLE]);
    text_summary_line(out, "still reachable", &sum[CLASS_REACHABLE]);
    text_summary_line(out, "suppressed", &f->sums.suppressed);
    if (sum[CLASS_UNKNOWN].blocks)
        text_summary_line(out, "not classified", &sum[CLASS_UNKNOWN]);
    if (f->baseline)
        text_baseline(f, out);
}

/* "signal 11 (SIGSEGV)", or "a signal" when the record did not say. */
static void name_signal(FILE *out, int sig)
{
    const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
    if (sig <= 0)
        fputs("a signal", out);
    else if (abbrev)
        fprintf(out, "signal %d (SIG%s)", sig, abbrev);
    else
        fprintf(out, "signal %d", sig);
}

/* The log's last verdicts are its end's: from the scan at exit, which
 * libmtrace also makes when a signal's default action ends the process. */
static int judged_at_end(const struct findings *f)
{
    return f->classified && f->verdicts &&
           strcmp(f->verdicts->last.trigger, MTF_END_EXIT) == 0;
}

void logend_text(FILE *out, const struct findings *f, uint64_t held_blocks,
                 uint64_t held_bytes)
{
    const struct log_end *end = f->end;
    if (!end->seen) {
        fputs("\nThe log ends early: it has no end record (\"#e\"), so the "
              "program was killed,\ncrashed or ran out of disk space while "
              "it was traced.  Blocks still live at\nthat point are listed, "
              "they are not proven leaks.\n",
              out);
        return;
    }
    switch (end->reason) {
    case END_EXEC:
        fprintf(out,
                "\nThe program replaced itself by exec (line %" PRIu64
                "): the %" PRIu64 " blocks (%" PRIu64
                " bytes)\nit still held went with its image, they are not "
                "leaks.\n",
                end->line, held_blocks, held_bytes);
        break;
    case END_SIGNAL:
        fputs("\nThe program was killed by ", out);
        name_signal(out, end->sig);
        fprintf(out, " (line %" PRIu64 "): ", end->line);
        fputs(judged_at_end(f) ? "the verdicts above are\nfrom the scan "
                                 "libmtrace made as it died.\n"
                               : "blocks still live at that\npoint are "
                                 "listed, they are not proven leaks.\n",
              out);
        break;
    case END_EXIT:
    case END_MUNTRACE:
    case END_OTHER:
        break;
    }
}

/* The Perl script's table of the blocks still live, in its order. */
static void leak_table(FILE *out, const struct findings *f)
{
    if (f->sample_rate) {
        /* A sampled log's blocks are samples: the groups tell what they
         * stand for; listing them as "not freed" would call them leaks. */
        fprintf(out,
                "\nSampled log: about one block per %" PRIu64
                " bytes allocated was recorded.\n"
                "%zu recorded blocks were not freed; the figures below are "
                "estimates, not exact leaks.\n",
                f->sample_rate, f->nleaks);
        return;
    }
    if (f->classified)
        return;
    if (f->nleaks == 0) {
        fputs("No memory leaks.\n", out);
        return;
    }
    fputs("\nMemory not freed:\n-----------------\n"
          "           Address     Size     Caller\n",
          out);
    for (size_t i = 0; i < f->nleaks; i++) {
        struct leak l;
        findings_leak(f, i, 1, &l);
        fprintf(out, "%#018" PRIx64 " %#8" PRIx64 "  at ", l.addr_value,
                l.size);
        put(out, l.caller);
        putc('\n', out);
    }
}

static int findings(struct writer *w, const struct findings *f)
{
    leak_table(w->out, f);
    if (f->classified)
        text_classes(f, w->out);
    else
        text_groups(w->out, f->groups, f->ngroups, f->sample_rate);
    growth_text(w->out, f);
    res_text(w->out, f);
    rss_text(w->out, f);
    if (f->judged)
        logend_text(w->out, f, f->totals.held_blocks,
                    f->totals.held_bytes);
    return 0;
}

/* "==> LOG <==" before each of several logs, as tail(1) does. */
static void list_item(const struct options *o, const char *log, int i, int n)
{
    (void)o;
    (void)n;
    printf("%s==> %s <==\n", i ? "\n" : "", log);
}

/* After several logs: their combined summary (treesum.h). */
static void list_end(const struct options *o, int n)
{
    (void)o;
    (void)n;
    treesum_text(stdout, treesum_tree());
}

const struct writer_ops text_writer = {
    .diff = text_diff,
    .name = "text",
    .warning = warning,
    .findings = findings,
    .list_item = list_item,
    .list_end = list_end,
};
