/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classreport.c - see classreport.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "classreport.h"
#include "json.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct loss_record {
    enum leak_class cls;
    int32_t stack; /* index into the log's stacks, -1: none recorded */
    uint64_t sid;
    uint64_t bytes, blocks, indirect;
    int suppressed; /* index of the suppression, -1: none */
    const struct view_frames *frames;
    char fp[FP_LEN]; /* fingerprint.h */
    int baseline;    /* fp is in the --baseline file */
};

struct class_view {
    struct engine *e;
    const struct class_options *o;
    uint8_t *cls;  /* per block */
    int *supp_of;  /* per block: its suppression's index, -1: none */
    struct loss_record *rec;
    size_t nrec;
    struct view_frames *views; /* per stack index, built on demand */
    uint8_t *viewed;
    size_t nviews;
    struct class_sums sums;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static const struct view_frames *frames_of(struct class_view *cv, int32_t st)
{
    if (st < 0 || (size_t)st >= cv->nviews)
        return NULL;
    if (!cv->viewed[st]) {
        cv->viewed[st] = 1;
        view_stack(&cv->e->ext, &cv->e->ext.stacks[st], &cv->views[st]);
    }
    return &cv->views[st];
}

/* Loss records: one per (class, stack). */
static void group(struct class_view *cv, struct block **blocks, size_t n,
                  const uint64_t *indirect, size_t *rec_of)
{
    struct u64map index;
    u64map_init(&index);
    cv->rec = xcalloc(n + 1, sizeof *cv->rec);
    for (size_t i = 0; i < n; i++) {
        const struct block *b = blocks[i];
        uint64_t key = (uint64_t)(uint32_t)(b->stack + 1) << 8 | cv->cls[i];
        void **slot = u64map_put(&index, key);
        if (*slot == NULL) {
            struct loss_record *r = &cv->rec[cv->nrec];
            r->cls = cv->cls[i];
            r->stack = b->stack;
            r->sid = b->stack >= 0 ? cv->e->ext.stacks[b->stack].sid : 0;
            r->suppressed = -1;
            *slot = (void *)(uintptr_t)++cv->nrec;
        }
        rec_of[i] = (uintptr_t)*slot - 1;
        struct loss_record *r = &cv->rec[rec_of[i]];
        r->bytes = add_sat(r->bytes, b->size);
        r->blocks++;
        r->indirect = add_sat(r->indirect, indirect[i]);
    }
    u64map_destroy(&index);
}

static void apply_suppressions(struct class_view *cv)
{
    for (size_t i = 0; i < cv->nrec; i++) {
        struct loss_record *r = &cv->rec[i];
        r->frames = frames_of(cv, r->stack);
        if (r->cls == CLASS_REACHABLE || !cv->o->supp)
            continue;
        r->suppressed = supp_match(cv->o->supp, r->frames);
        if (r->suppressed < 0)
            continue;
        struct suppression *s = &cv->o->supp->s[r->suppressed];
        s->blocks += r->blocks;
        s->bytes = add_sat(s->bytes, r->bytes);
    }
    for (size_t i = 0; i < cv->nrec; i++) {
        const struct loss_record *r = &cv->rec[i];
        struct class_sum *s = r->suppressed >= 0 ? &cv->sums.suppressed
                                                 : &cv->sums.sum[r->cls];
        s->bytes = add_sat(s->bytes, r->bytes);
        s->blocks += r->blocks;
    }
}

static int rank(enum leak_class c)
{
    static const int ranks[CLASS_COUNT] = {
        [CLASS_DEFINITE] = 0, [CLASS_INDIRECT] = 1,  [CLASS_POSSIBLE] = 2,
        [CLASS_UNKNOWN] = 3,  [CLASS_REACHABLE] = 4,
    };
    return ranks[c];
}

static int by_rank_then_size(const void *pa, const void *pb)
{
    const struct loss_record *a = pa, *b = pb;
    if (rank(a->cls) != rank(b->cls))
        return rank(a->cls) - rank(b->cls);
    uint64_t ta = add_sat(a->bytes, a->indirect);
    uint64_t tb = add_sat(b->bytes, b->indirect);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    if ((a->stack < 0) != (b->stack < 0))
        return a->stack < 0 ? 1 : -1;
    return (a->sid > b->sid) - (a->sid < b->sid);
}

/* Each record's fingerprint, and whether the baseline knows it. */
static void identify(struct class_view *cv)
{
    struct fp_item *it = xcalloc(cv->nrec + 1, sizeof *it);
    for (size_t i = 0; i < cv->nrec; i++) {
        it[i].frames = cv->rec[i].frames;
        it[i].stack = cv->rec[i].stack;
    }
    fingerprint_assign(it, cv->nrec);
    for (size_t i = 0; i < cv->nrec; i++) {
        memcpy(cv->rec[i].fp, it[i].fp, FP_LEN);
        cv->rec[i].baseline = baseline_has(cv->o->baseline, it[i].fp);
    }
    free(it);
}

/* Whether record R counts toward the exit status. */
static int record_fails(const struct class_view *cv,
                        const struct loss_record *r)
{
    return (cv->o->fail_on >> r->cls & 1) && r->suppressed < 0 &&
           !r->baseline;
}

struct class_view *classview_build(struct engine *e, struct block **blocks,
                                   size_t n, const struct class_options *o)
{
    struct class_view *cv = xcalloc(1, sizeof *cv);
    cv->e = e;
    cv->o = o;
    cv->cls = xcalloc(n + 1, 1);
    uint64_t *indirect = xcalloc(n + 1, sizeof *indirect);
    for (size_t i = 0; i < n; i++)
        cv->cls[i] = (uint8_t)verdicts_class(&e->verdicts, blocks[i],
                                             &indirect[i]);
    cv->nviews = e->ext.nstacks;
    cv->views = xcalloc(cv->nviews + 1, sizeof *cv->views);
    cv->viewed = xcalloc(cv->nviews + 1, 1);
    size_t *rec_of = xcalloc(n + 1, sizeof *rec_of);
    group(cv, blocks, n, indirect, rec_of);
    free(indirect);
    apply_suppressions(cv);
    /* Before the records are sorted: each block's, for leaks[] in JSON. */
    cv->supp_of = xcalloc(n + 1, sizeof *cv->supp_of);
    for (size_t i = 0; i < n; i++)
        cv->supp_of[i] = cv->rec[rec_of[i]].suppressed;
    free(rec_of);
    qsort(cv->rec, cv->nrec, sizeof *cv->rec, by_rank_then_size);
    identify(cv);
    return cv;
}

void classview_free(struct class_view *cv)
{
    if (cv == NULL)
        return;
    for (size_t i = 0; i < cv->nviews; i++)
        free(cv->views[i].v);
    free(cv->views);
    free(cv->viewed);
    free(cv->rec);
    free(cv->cls);
    free(cv->supp_of);
    free(cv);
}

enum leak_class classview_class(const struct class_view *cv, size_t i)
{
    return cv->cls[i];
}

const char *classview_suppressed_by(const struct class_view *cv, size_t i)
{
    int k = cv->supp_of[i];
    return k >= 0 ? cv->o->supp->s[k].pattern : NULL;
}

struct class_sum classview_failing(const struct class_view *cv)
{
    struct class_sum f = { 0, 0 };
    for (size_t i = 0; i < cv->nrec; i++)
        if (record_fails(cv, &cv->rec[i])) {
            f.bytes = add_sat(f.bytes, cv->rec[i].bytes);
            f.blocks += cv->rec[i].blocks;
        }
    return f;
}

const struct class_sums *classview_sums(const struct class_view *cv)
{
    return &cv->sums;
}

size_t classview_nrecords(const struct class_view *cv)
{
    return cv->nrec;
}

void classview_record(const struct class_view *cv, size_t i,
                      struct loss_info *out)
{
    const struct loss_record *r = &cv->rec[i];
    out->cls = r->cls;
    out->suppressed = r->suppressed >= 0;
    out->stack = r->stack;
    out->bytes = r->bytes;
    out->blocks = r->blocks;
    out->indirect = r->indirect;
    out->frames = r->frames;
    out->fingerprint = r->fp;
    out->baseline = r->baseline;
    out->failing = record_fails(cv, r);
    out->suppressed_by =
        r->suppressed >= 0 ? cv->o->supp->s[r->suppressed].pattern : NULL;
}

int class_is_leak(enum leak_class c)
{
    return c == CLASS_DEFINITE || c == CLASS_INDIRECT || c == CLASS_POSSIBLE;
}

uint64_t *classview_lost_bytes(const struct class_view *cv, size_t n)
{
    uint64_t *w = xcalloc(n + 1, sizeof *w);
    for (size_t i = 0; i < cv->nrec; i++) {
        const struct loss_record *r = &cv->rec[i];
        size_t k = (size_t)(r->stack + 1);
        if (k < n && r->suppressed < 0 && class_is_leak(r->cls))
            w[k] = add_sat(w[k], r->bytes);
    }
    return w;
}

const char *class_key(enum leak_class c)
{
    static const char *const keys[CLASS_COUNT] = { "unknown", "still_reachable",
                                                   "possibly_lost",
                                                   "indirectly_lost",
                                                   "definitely_lost" };
    return keys[c];
}

void class_sums_json(FILE *out, const struct class_sums *s)
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

int classview_fails(const struct class_view *cv)
{
    for (size_t i = 0; i < cv->nrec; i++)
        if (record_fails(cv, &cv->rec[i]))
            return 1;
    return 0;
}

/* ---- text ------------------------------------------------------------------ */

/* Decimal with thousands separators, as valgrind prints sizes. */
static const char *commas(uint64_t v, char *buf)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v), k = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

static int listed(const struct class_view *cv, const struct loss_record *r)
{
    return r->suppressed < 0 &&
           (r->cls != CLASS_REACHABLE || cv->o->show_reachable);
}

/* "  fingerprint FP", and with a baseline whether it is in it. */
static void text_fingerprint(FILE *out, const struct class_view *cv,
                             const struct loss_record *r)
{
    fprintf(out, "  fingerprint %s", r->fp);
    if (cv->o->baseline)
        fputs(r->baseline ? " (in the baseline)" : " (new: not in the baseline)",
              out);
    putc('\n', out);
}

static void text_record(FILE *out, const struct class_view *cv,
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
                " in %s blocks are not classified (allocated after the "
                "last scan) in loss record %zu of %zu\n",
                commas(r->blocks, d), k, total);
    else
        fprintf(out, " in %s blocks are %s in loss record %zu of %zu\n",
                commas(r->blocks, d), class_words(r->cls), k, total);
    if (r->frames == NULL)
        fputs("    (no stack recorded)\n", out);
    else if (r->frames->n == 0)
        fputs("    (empty stack)\n", out);
    for (size_t i = 0; r->frames && i < r->frames->n; i++)
        report_text_frame(out, i, &r->frames->v[i]);
    text_fingerprint(out, cv, r);
}

static void text_scan_line(const struct class_view *cv, FILE *out)
{
    const struct verdicts *v = &cv->e->verdicts;
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

static void text_suppressions(const struct class_view *cv, FILE *out)
{
    const struct suppressions *s = cv->o->supp;
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
            fprintf(out, "%7" PRIu64 " %10" PRIu64 " leak:%s\n", s->s[i].blocks,
                    s->s[i].bytes, s->s[i].pattern);
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
static void text_baseline(const struct class_view *cv, FILE *out)
{
    size_t known = 0, fresh = 0;
    for (size_t i = 0; i < cv->nrec; i++)
        if (listed(cv, &cv->rec[i]))
            cv->rec[i].baseline ? known++ : fresh++;
    fprintf(out, "\nBASELINE %s: %zu loss records in it, %zu new\n",
            cv->o->baseline->path, known, fresh);
    for (size_t i = 0, k = 0; i < cv->nrec; i++) {
        const struct loss_record *r = &cv->rec[i];
        if (!listed(cv, r))
            continue;
        k++; /* its number in the list above */
        if (r->baseline)
            continue;
        const struct view_frame *f = fp_own_frame(r->frames);
        fprintf(out, "  new: %s %s, %" PRIu64 " bytes in loss record %zu",
                r->fp, class_words(r->cls), r->bytes, k);
        if (f && f->function)
            fprintf(out, ", %s", f->function);
        if (f && f->file)
            fprintf(out, " (%s:%u)", f->file, f->line);
        putc('\n', out);
    }
}

void classview_text(const struct class_view *cv, FILE *out)
{
    text_scan_line(cv, out);
    size_t total = 0, k = 0;
    for (size_t i = 0; i < cv->nrec; i++)
        total += listed(cv, &cv->rec[i]);
    for (size_t i = 0; i < cv->nrec; i++)
        if (listed(cv, &cv->rec[i]))
            text_record(out, cv, &cv->rec[i], ++k, total);
    const struct class_sum *r = &cv->sums.sum[CLASS_REACHABLE];
    if (r->blocks && !cv->o->show_reachable) {
        char a[32], b[32];
        fprintf(out,
                "\nstill reachable: %s bytes in %s blocks "
                "(--show-reachable lists them)\n",
                commas(r->bytes, a), commas(r->blocks, b));
    }
    text_suppressions(cv, out);
    if (cv->nrec == 0) {
        fputs("\nAll heap blocks were freed -- no leaks are possible\n", out);
        return;
    }
    fputs("\nLEAK SUMMARY:\n", out);
    const struct class_sum *sum = cv->sums.sum;
    text_summary_line(out, "definitely lost", &sum[CLASS_DEFINITE]);
    text_summary_line(out, "indirectly lost", &sum[CLASS_INDIRECT]);
    text_summary_line(out, "possibly lost", &sum[CLASS_POSSIBLE]);
    text_summary_line(out, "still reachable", &sum[CLASS_REACHABLE]);
    text_summary_line(out, "suppressed", &cv->sums.suppressed);
    if (sum[CLASS_UNKNOWN].blocks)
        text_summary_line(out, "not classified", &sum[CLASS_UNKNOWN]);
    if (cv->o->baseline)
        text_baseline(cv, out);
}

/* ---- JSON ------------------------------------------------------------------ */

void classview_json(const struct class_view *cv, FILE *out)
{
    const struct verdicts *v = &cv->e->verdicts;
    fputs("],\n\"scan\":{\"trigger\":", out);
    json_cstring(out, v->last.trigger);
    fprintf(out,
            ",\"scans\":%" PRIu64 ",\"threads\":%" PRIu64
            ",\"stopped\":%" PRIu64 ",\"unstopped\":%" PRIu64
            ",\"bytes_scanned\":%" PRIu64
            ",\"seconds\":%.6f},\n\"suppressions\":[",
            v->scans, v->last.threads, v->last.stopped, v->last.unstopped,
            v->last.scanned, v->last.us / 1e6);
    const struct suppressions *s = cv->o->supp;
    for (size_t i = 0; s && i < s->n; i++) {
        fputs(i ? ",\n{\"pattern\":" : "\n{\"pattern\":", out);
        json_cstring(out, s->s[i].pattern);
        fprintf(out, ",\"blocks\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
                s->s[i].blocks, s->s[i].bytes);
    }
    fputs("],\n\"loss_records\":[", out);
    for (size_t i = 0, k = 0; i < cv->nrec; i++) {
        const struct loss_record *r = &cv->rec[i];
        fprintf(out,
                "%s{\"class\":\"%s\",\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64
                ",\"indirect_bytes\":%" PRIu64 ",\"suppressed_by\":",
                k++ ? ",\n" : "\n", class_name(r->cls), r->bytes, r->blocks,
                r->indirect);
        json_cstring(out,
                     r->suppressed >= 0 ? s->s[r->suppressed].pattern : NULL);
        fprintf(out, ",\"fingerprint\":\"%s\"", r->fp);
        if (cv->o->baseline)
            fprintf(out, ",\"baseline\":%s", r->baseline ? "true" : "false");
        fputs(",\"stack_id\":", out);
        if (r->stack >= 0)
            fprintf(out, "%" PRIu64, r->sid);
        else
            fputs("null", out);
        fputs(",\"frames\":", out);
        report_json_frames(out, r->frames);
        putc('}', out);
    }
}
