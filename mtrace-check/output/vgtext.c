/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgtext.c - the text of --valgrind (vgreport.h): what memcheck prints on
 * standard error, line for line where a tool reads it:
 *   ==PID== 1,021 bytes in 1 blocks are definitely lost in loss record 2 of 9
 *   ==PID==    at 0x109476: alloc (verdicts.c:21)
 *   ==PID==    by 0x1094D2: main (verdicts.c:45)
 * then LEAK SUMMARY and ERROR SUMMARY; -q (VG_QUIET) prints the loss
 * records only.  ctest -T memcheck counts the loss record lines.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/vgreport.h"
#include "replay/verdict.h"

#include <inttypes.h>
#include <string.h>

const char *vg_commas(uint64_t v, char *buf)
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

const char *vg_words(int cls)
{
    return class_words((enum leak_class)cls);
}

const char *vg_kind(int cls)
{
    switch (cls) {
    case CLASS_DEFINITE:
        return "Leak_DefinitelyLost";
    case CLASS_INDIRECT:
        return "Leak_IndirectlyLost";
    case CLASS_POSSIBLE:
        return "Leak_PossiblyLost";
    default:
        return "Leak_StillReachable";
    }
}

const char *vg_supp_word(int cls)
{
    switch (cls) {
    case CLASS_DEFINITE:
        return "definite";
    case CLASS_INDIRECT:
        return "indirect";
    case CLASS_POSSIBLE:
        return "possible";
    default:
        return "reachable";
    }
}

int vg_listed(const struct vg_record *r, const struct vg_options *o)
{
    return !r->suppressed && r->cls != CLASS_UNKNOWN &&
           (o->show_kinds >> r->cls & 1);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void frame_line(FILE *out, uint64_t pid, size_t k,
                       const struct vg_frame *f)
{
    fprintf(out, "==%" PRIu64 "==    %s 0x%" PRIX64 ": %s", pid,
            k ? "by" : "at", f->ip, f->fn ? f->fn : "???");
    if (f->file && f->line)
        fprintf(out, " (%s:%u)", base_name(f->file), f->line);
    else if (f->obj)
        fprintf(out, " (in %s)", f->obj);
    putc('\n', out);
}

/* The suppression that would hide R, as --gen-suppressions=all writes it
 * (no allocation frame: libmtrace's stacks start at its caller).  With
 * IN_CDATA the entry goes inside an XML CDATA section, which cannot hold
 * "]]>": a frame whose name has it is left out. */
void vg_write_suppression(FILE *out, const struct vg_record *r, int in_cdata)
{
    fprintf(out,
            "{\n   <insert_a_suppression_name_here>\n   Memcheck:Leak\n"
            "   match-leak-kinds: %s\n",
            vg_supp_word(r->cls));
    for (size_t i = 0; i < r->nf; i++) {
        const struct vg_frame *f = &r->f[i];
        const char *name = f->fn ? f->fn : f->obj ? f->obj : "*";
        if (in_cdata && strstr(name, "]]>") != NULL)
            continue;
        fprintf(out, "   %s:%s\n", f->fn ? "fun" : "obj", name);
    }
    fputs("}\n", out);
}

const char vg_noverdict_note[] =
    "not freed (no reachability verdict): the log has no reachability "
    "scan, so every block not freed at exit is counted as definitely lost";

static void record(FILE *out, const struct vg_process *p, size_t i,
                   const struct vg_options *o)
{
    const struct vg_record *r = &p->rec[i];
    char a[32], b[32], c[32], d[32], e[32], t[32];
    fprintf(out, "==%" PRIu64 "== ", p->pid);
    if (r->cls == CLASS_DEFINITE && r->indirect)
        fprintf(out, "%s (%s direct, %s indirect) bytes",
                vg_commas(r->bytes + r->indirect, a), vg_commas(r->bytes, b),
                vg_commas(r->indirect, c));
    else
        fprintf(out, "%s bytes", vg_commas(r->bytes, a));
    fprintf(out, " in %s blocks are %s in loss record %s of %s\n",
            vg_commas(r->blocks, d), vg_words(r->cls), vg_commas(i + 1, e),
            vg_commas(p->nrec, t));
    for (size_t k = 0; k < r->nf; k++)
        frame_line(out, p->pid, k, &r->f[k]);
    if (r->noverdict) /* where valgrind prints an error's auxwhat */
        fprintf(out, "==%" PRIu64 "==  %s\n", p->pid, vg_noverdict_note);
    fprintf(out, "==%" PRIu64 "== \n", p->pid);
    if (o->gen_supp)
        vg_write_suppression(out, r, 0);
}

static void sum_line(FILE *out, uint64_t pid, const char *words,
                     const struct vg_sum *s)
{
    char a[32], b[32];
    fprintf(out, "==%" PRIu64 "== %18s: %s bytes in %s blocks\n", pid, words,
            vg_commas(s->bytes, a), vg_commas(s->blocks, b));
}

static void leak_summary(FILE *out, uint64_t pid, const struct vg_sum *sum,
                         const struct vg_sum *suppressed)
{
    sum_line(out, pid, "definitely lost", &sum[CLASS_DEFINITE]);
    sum_line(out, pid, "indirectly lost", &sum[CLASS_INDIRECT]);
    sum_line(out, pid, "possibly lost", &sum[CLASS_POSSIBLE]);
    sum_line(out, pid, "still reachable", &sum[CLASS_REACHABLE]);
    sum_line(out, pid, "suppressed", suppressed);
    if (sum[CLASS_UNKNOWN].blocks)
        sum_line(out, pid, "not classified", &sum[CLASS_UNKNOWN]);
}

static struct vg_sum in_use(const struct vg_sum *sum,
                            const struct vg_sum *suppressed)
{
    struct vg_sum u = *suppressed;
    for (int c = 0; c < CLASS_COUNT; c++) {
        u.bytes += sum[c].bytes;
        u.blocks += sum[c].blocks;
    }
    return u;
}

static void header(FILE *out, const struct vg_process *p)
{
    char a[32], b[32];
    struct vg_sum u = in_use(p->sum, &p->suppressed);
    fprintf(out,
            "==%" PRIu64 "== Memcheck-compatible leak report of libmtrace "
            "(mtrace-check --valgrind)\n",
            p->pid);
    if (p->program)
        fprintf(out, "==%" PRIu64 "== Command: %s\n", p->pid, p->program);
    fprintf(out,
            "==%" PRIu64 "== \n==%" PRIu64 "== HEAP SUMMARY:\n==%" PRIu64
            "==     in use at exit: %s bytes in %s blocks\n==%" PRIu64 "== \n",
            p->pid, p->pid, p->pid, vg_commas(u.bytes, a),
            vg_commas(u.blocks, b), p->pid);
}

/* Errors: the records of the error classes (valgrind's
 * --errors-for-leak-kinds), as --leak-check=full counts them. */
static void error_summary(FILE *out, const struct vg_process *p,
                          const struct vg_options *o)
{
    uint64_t errors = 0, suppressed = 0;
    for (size_t i = 0; i < p->nrec; i++) {
        const struct vg_record *r = &p->rec[i];
        if (!(o->error_kinds >> r->cls & 1))
            continue;
        if (r->suppressed)
            suppressed++;
        else if (o->mode != VG_SUMMARY && r->cls != CLASS_UNKNOWN)
            errors++;
    }
    fprintf(out,
            "==%" PRIu64 "== ERROR SUMMARY: %" PRIu64 " errors from %" PRIu64
            " contexts (suppressed: %" PRIu64 " from %" PRIu64 ")\n",
            p->pid, errors, errors, suppressed, suppressed);
}

void vg_text_process(FILE *out, const struct vg_process *p,
                     const struct vg_options *o)
{
    if (o->mode != VG_QUIET)
        header(out, p);
    if (o->mode != VG_SUMMARY)
        for (size_t i = 0; i < p->nrec; i++)
            if (vg_listed(&p->rec[i], o))
                record(out, p, i, o);
    if (o->mode == VG_QUIET)
        return;
    if (in_use(p->sum, &p->suppressed).blocks == 0)
        fprintf(out,
                "==%" PRIu64 "== All heap blocks were freed -- no leaks are "
                "possible\n",
                p->pid);
    else {
        fprintf(out, "==%" PRIu64 "== LEAK SUMMARY:\n", p->pid);
        leak_summary(out, p->pid, p->sum, &p->suppressed);
    }
    fprintf(out, "==%" PRIu64 "== \n", p->pid);
    error_summary(out, p, o);
}

void vg_text_combined(FILE *out, const struct vg_process *p, size_t n,
                      const struct vg_options *o)
{
    if (n < 2 || o->mode == VG_QUIET)
        return;
    struct vg_sum sum[CLASS_COUNT] = { { 0, 0 } }, supp = { 0, 0 };
    uint64_t pid = p[0].pid;
    fprintf(out, "==%" PRIu64 "== \n==%" PRIu64 "== LEAK SUMMARY of %zu "
            "processes (", pid, pid, n);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s%" PRIu64, i ? ", " : "", p[i].pid);
        for (int c = 0; c < CLASS_COUNT; c++) {
            sum[c].bytes += p[i].sum[c].bytes;
            sum[c].blocks += p[i].sum[c].blocks;
        }
        supp.bytes += p[i].suppressed.bytes;
        supp.blocks += p[i].suppressed.blocks;
    }
    fputs("):\n", out);
    leak_summary(out, pid, sum, &supp);
    fprintf(out, "==%" PRIu64 "== \n", pid);
}
