/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgcollect.c - the checker's side of the valgrind-shaped reports
 * (vgreport.h): their options, the model filled from a checked log's loss
 * records (classreport.h), each log's text as it is checked, and at the
 * end the tree's summary and the XML document.  main.c and outputs.c
 * call the three functions of vgcollect.h and nothing else.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "vgcollect.h"
#include "classreport.h"
#include "diag.h"
#include "util.h"
#include "maps.h"
#include "stackview.h"
#include "verdict.h"

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

int vg_active(void)
{
    return vopt.mode != VG_OFF || vopt.xml != NULL;
}

int vg_text(void)
{
    return vopt.mode != VG_OFF;
}

/* ---- the model --------------------------------------------------------------- */

static struct vg_process *procs;
static size_t nprocs;

static uint64_t module_base(const struct ext_store *x, const char *path)
{
    for (size_t i = 0; path && i < x->nmods; i++)
        if (x->mods[i].path == path || strcmp(x->mods[i].path, path) == 0)
            return x->mods[i].base;
    return 0;
}

/* The frames valgrind would show: up to --num-callers (its count has the
 * allocation function first, which libmtrace's stacks do not), none
 * below main. */
static void take_frames(struct vg_record *r, const struct ext_store *x,
                        const struct view_frames *v)
{
    size_t max = vopt.num_callers > 1 ? (size_t)vopt.num_callers - 1 : 1;
    r->f = xcalloc((v ? v->n : 0) + 1, sizeof *r->f);
    for (size_t i = 0; v && i < v->n && r->nf < max; i++) {
        const struct view_frame *s = &v->v[i];
        struct vg_frame *f = &r->f[r->nf++];
        f->ip = s->module ? module_base(x, s->module) + s->off : s->off;
        /* copies: the log's module paths go with its engine */
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

static void take_records(struct vg_process *p, const struct engine *e)
{
    const struct class_view *cv = e->classes;
    size_t n = cv ? classview_nrecords(cv) : 0;
    p->rec = xcalloc(n + 1, sizeof *p->rec);
    for (size_t i = 0; i < n; i++) {
        struct loss_info li;
        classview_record(cv, i, &li);
        struct vg_record *r = &p->rec[p->nrec++];
        r->cls = li.cls;
        r->bytes = li.bytes;
        r->blocks = li.blocks;
        r->indirect = li.indirect;
        r->suppressed = li.suppressed;
        take_frames(r, &e->ext, li.frames);
    }
    qsort(p->rec, p->nrec, sizeof *p->rec, vg_order);
    if (cv == NULL)
        return;
    const struct class_sums *s = classview_sums(cv);
    for (int c = 0; c < CLASS_COUNT; c++)
        p->sum[c] = (struct vg_sum){ s->sum[c].bytes, s->sum[c].blocks };
    p->suppressed = (struct vg_sum){ s->suppressed.bytes,
                                     s->suppressed.blocks };
}

static void take_suppressions(struct vg_process *p, const struct engine *e)
{
    const struct suppressions *s = e->copts ? e->copts->supp : NULL;
    p->supp = xcalloc((s ? s->n : 0) + 1, sizeof *p->supp);
    for (size_t i = 0; s && i < s->n; i++)
        if (s->s[i].blocks)
            p->supp[p->nsupp++] =
                (struct vg_supp_count){ xstrdup(s->s[i].pattern),
                                        s->s[i].blocks };
}

/* A log without reachability verdicts (glibc's, or reach=0): every block
 * still allocated is a leak, as mtrace-check's own report has it; one
 * loss record per stack, all definitely lost, the suppressions applied. */
static void take_unjudged(struct vg_process *p, const struct engine *e)
{
    const struct alloc_table *t = &e->table;
    const struct ext_store *x = &e->ext;
    const struct suppressions *supp = e->copts ? e->copts->supp : NULL;
    int32_t *stack_of = xcalloc(t->count + 1, sizeof *stack_of);
    struct u64map index;
    u64map_init(&index);
    p->rec = xcalloc(t->count + 1, sizeof *p->rec);
    for (size_t i = 0; i < t->count; i++) {
        const struct block *b = &t->blocks[i];
        void **slot = u64map_put(&index, (uint64_t)(uint32_t)(b->stack + 1));
        if (*slot == NULL) {
            stack_of[p->nrec] = b->stack;
            p->rec[p->nrec].cls = CLASS_DEFINITE;
            *slot = (void *)(uintptr_t)++p->nrec;
        }
        struct vg_record *r = &p->rec[(uintptr_t)*slot - 1];
        r->bytes += b->size;
        r->blocks++;
    }
    u64map_destroy(&index);
    for (size_t k = 0; k < p->nrec; k++) {
        struct vg_record *r = &p->rec[k];
        int32_t st = stack_of[k];
        struct view_frames v = { NULL, 0, 0 };
        if (st >= 0 && (size_t)st < x->nstacks)
            view_stack((struct ext_store *)x, &x->stacks[st], &v);
        take_frames(r, x, st >= 0 ? &v : NULL);
        int by = supp ? supp_match_class(supp, &v, CLASS_DEFINITE) : -1;
        free(v.v);
        r->suppressed = by >= 0;
        struct vg_sum *sum = by >= 0 ? &p->suppressed : &p->sum[CLASS_DEFINITE];
        sum->bytes += r->bytes;
        sum->blocks += r->blocks;
        if (by >= 0) {
            supp->s[by].blocks += r->blocks;
            supp->s[by].bytes += r->bytes;
        }
    }
    free(stack_of);
    qsort(p->rec, p->nrec, sizeof *p->rec, vg_order);
}

void vg_collect(const struct engine *e, const char *log)
{
    if (!vg_active())
        return;
    int unjudged = e->classes == NULL && e->verdicts.scans == 0 &&
                   e->table.count && logend_leaks_count(&e->end);
    if (unjudged)
        diag(log, 0,
             "no reachability verdicts (a log of glibc's, one written with "
             "MEMLEAK_CONFIG=reach=0, or its process was killed before its "
             "exit scan): every block still allocated is reported as "
             "definitely lost");
    procs = xrealloc(procs, (nprocs + 1) * sizeof *procs);
    struct vg_process *p = &procs[nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = e->ext.pid;
    p->ppid = e->ext.ppid;
    p->program = e->ext.program ? xstrdup(e->ext.program) : NULL;
    if (unjudged)
        take_unjudged(p, e);
    else
        take_records(p, e);
    take_suppressions(p, e);
    if (vopt.mode != VG_OFF)
        vg_text_process(stdout, p, &vopt);
}

int vg_finish(void)
{
    int err = 0;
    if (vopt.mode != VG_OFF)
        vg_text_combined(stdout, procs, nprocs, &vopt);
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
