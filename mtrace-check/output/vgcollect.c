/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgcollect.c - the two writers of the valgrind-shaped reports
 * (vgreport.h; rows of outputs.c's table): valgrind_writer, the report
 * on standard output for --valgrind (each log's text as it is checked,
 * the tree's summary after the last), and vgxml_writer for --xml FILE
 * (one document, written after the last log by vg_finish).  Both fill
 * the same narrow model (struct vg_process) from the findings' loss
 * records (findings.h), once per log.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/vgcollect.h"
#include "base/diag.h"
#include "base/util.h"
#include "replay/verdict.h"
#include "findings/noverdict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- options (options.h's rows valgrind, xml, show-leak-kinds, ...) ---- */

static struct vg_options vopt = {
    VG_OFF, NULL, 1 << CLASS_DEFINITE | 1 << CLASS_POSSIBLE,
    1 << CLASS_DEFINITE, 12, 0,
};
static FILE *xml_out; /* --xml FILE, opened by vg_configure */

int vg_configure(const struct options *o)
{
    vopt.mode = (enum vg_mode)o->valgrind;
    vopt.xml = o->xml;
    if (o->show_leak_kinds)
        vopt.show_kinds = o->show_leak_kinds - 1;
    else if (o->show_reachable)
        vopt.show_kinds = (1 << CLASS_COUNT) - 1;
    if (o->num_callers)
        vopt.num_callers = o->num_callers;
    vopt.gen_supp = o->valgrind_suppressions;
    vopt.error_kinds = o->fail_on;
    if (vopt.mode != VG_OFF && (o->json || o->folded)) {
        diag_usage("--valgrind prints on standard output, as --json and "
                   "--folded do: choose one");
        return -1;
    }
    if (vopt.xml) { /* an unwritable FILE is told before the check */
        xml_out = fopen(vopt.xml, "w");
        if (xml_out == NULL) {
            diag(vopt.xml, 0, "cannot write the XML report: %s",
                 strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* ---- the model --------------------------------------------------------------- */

static struct vg_process *procs;
static size_t nprocs;

static uint64_t module_base(const struct ext_store *x, const char *path)
{
    for (size_t i = 0; x && path && i < x->nmods; i++)
        if (x->mods[i].path == path || strcmp(x->mods[i].path, path) == 0)
            return x->mods[i].base;
    return 0;
}

/* The frames valgrind would show: up to --num-callers (its count has the
 * allocation function first, which libmtrace's stacks do not), none
 * below main.  Copies: the log's strings go with its engine. */
static void take_frames(struct vg_record *r, const struct ext_store *x,
                        const struct view_frames *v)
{
    size_t max = vopt.num_callers > 1 ? (size_t)vopt.num_callers - 1 : 1;
    r->f = xcalloc((v ? v->n : 0) + 1, sizeof *r->f);
    for (size_t i = 0; v && i < v->n && r->nf < max; i++) {
        const struct view_frame *s = &v->v[i];
        struct vg_frame *f = &r->f[r->nf++];
        f->ip = s->module ? module_base(x, s->module) + s->off : s->off;
        f->fn = s->function ? xstrdup(s->function) : NULL;
        f->obj = s->module ? xstrdup(s->module) : NULL;
        f->file = s->file ? xstrdup(s->file) : NULL;
        f->line = s->line;
        if (s->function && strcmp(s->function, "main") == 0 && !s->inlined)
            break;
    }
}

static uint64_t total(const struct vg_record *r)
{
    return r->bytes + r->indirect;
}

/* valgrind's order: total size, then definitely, indirectly, possibly
 * lost, still reachable, then number of blocks, smallest first. */
static int vg_order(const void *pa, const void *pb)
{
    static const int rank[CLASS_COUNT] = {
        [CLASS_DEFINITE] = 0, [CLASS_INDIRECT] = 1, [CLASS_POSSIBLE] = 2,
        [CLASS_REACHABLE] = 3, [CLASS_UNKNOWN] = 4,
    };
    const struct vg_record *a = pa, *b = pb;
    if (total(a) != total(b))
        return total(a) < total(b) ? -1 : 1;
    if (rank[a->cls] != rank[b->cls])
        return rank[a->cls] - rank[b->cls];
    return (a->blocks > b->blocks) - (a->blocks < b->blocks);
}

/* The loss records and their sums.  A log without verdicts (glibc's,
 * reach=0, a process killed before its exit scan): every block still
 * allocated is a leak, as mtrace-check's own report has it. */
static void take_records(struct vg_process *p, const struct findings *f)
{
    struct nv_records nv = { .r = f->records, .n = f->nrecords };
    if (!f->classified) /* glibc's logs too: one record per caller */
        nv_build(&nv, f);
    p->rec = xcalloc(nv.n + 1, sizeof *p->rec);
    for (size_t i = 0; i < nv.n; i++) {
        const struct loss_record *l = &nv.r[i];
        struct vg_record *r = &p->rec[p->nrec++];
        r->noverdict = !l->classified;
        r->cls = l->classified ? (int)l->cls : CLASS_DEFINITE;
        r->bytes = l->bytes;
        r->blocks = l->blocks;
        r->indirect = l->indirect;
        r->suppressed = l->suppressed >= 0;
        take_frames(r, f->stacks, l->frames);
        struct vg_sum *s = r->suppressed ? &p->suppressed : &p->sum[r->cls];
        s->bytes += r->bytes;
        s->blocks += r->blocks;
    }
    if (!f->classified)
        nv_destroy(&nv);
    qsort(p->rec, p->nrec, sizeof *p->rec, vg_order);
}

static void take_suppressions(struct vg_process *p, const struct findings *f)
{
    const struct suppressions *s = f->supp;
    p->supp = xcalloc((s ? s->n : 0) + 1, sizeof *p->supp);
    for (size_t i = 0; s && i < s->n; i++)
        if (s->s[i].blocks)
            p->supp[p->nsupp++] =
                (struct vg_supp_count){ xstrdup(s->s[i].pattern),
                                        s->s[i].blocks };
}

/* The process of F, added to the tree. */
static struct vg_process *collect(const struct findings *f)
{
    if (!f->classified && f->nleaks)
        diag(f->log, 0,
             "no reachability verdicts (a log of glibc's, one written with "
             "MEMLEAK_CONFIG=reach=0, or its process was killed before its "
             "exit scan): every block still allocated is reported as "
             "definitely lost");
    procs = xrealloc(procs, (nprocs + 1) * sizeof *procs);
    struct vg_process *p = &procs[nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = f->stacks ? f->stacks->pid : 0;
    p->ppid = f->stacks ? f->stacks->ppid : 0;
    p->program = f->program ? xstrdup(f->program) : NULL;
    take_records(p, f);
    take_suppressions(p, f);
    return p;
}

/* ---- the writers ----------------------------------------------------------- */

static int text_findings(struct writer *w, const struct findings *f)
{
    vg_text_process(w->out, collect(f), &vopt);
    return 0;
}

static void text_list_end(const struct options *o, int n)
{
    (void)o, (void)n;
    vg_text_combined(stdout, procs, nprocs, &vopt);
}

static int xml_findings(struct writer *w, const struct findings *f)
{
    if (!w->opt->valgrind) /* else the report's writer took it */
        collect(f);
    return 0;
}

const struct writer_ops valgrind_writer = {
    .name = "valgrind",
    .findings = text_findings,
    .list_end = text_list_end,
};

const struct writer_ops vgxml_writer = {
    .name = "valgrind-xml",
    .findings = xml_findings,
};

int vg_finish(void)
{
    int err = 0;
    if (xml_out) {
        vg_xml(xml_out, procs, nprocs, &vopt);
        if (fclose(xml_out) != 0) {
            diag(vopt.xml, 0, "error writing the XML report");
            err = -1;
        }
        xml_out = NULL;
    }
    return err;
}
