/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cireport.c - the run's loss records kept for the CI outputs, and the
 * files written from them (see cireport.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cireport.h"
#include "findings/baseline.h"
#include "findings/findings.h"
#include "findings/noverdict.h"
#include "base/diag.h"
#include "output/writer.h"
#include "output/cires.h"
#include "base/maps.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct options *opt;
static struct baseline base;
static struct ci_report rep;
static char *cwd;

int ci_wanted(const struct options *o)
{
    return o->sarif || o->junit || o->codequality || o->baseline ||
           o->write_baseline || o->gen_supp;
}

int ci_reported(const struct ci_record *r)
{
    return r->suppressed_by == NULL &&
           (class_is_leak(r->cls) || r->failing || r->noverdict ||
            r->resource);
}

int ci_begin(const struct options *o)
{
    opt = o;
    rep.baseline = o->baseline != NULL;
    cwd = getcwd(NULL, 0);
    if (o->baseline == NULL)
        return 0;
    return baseline_load(&base, o->baseline);
}

const struct baseline *ci_baseline(void)
{
    return rep.baseline ? &base : NULL;
}

const char *ci_relpath(const char *file)
{
    size_t n = cwd ? strlen(cwd) : 0;
    if (file && n > 1 && strncmp(file, cwd, n) == 0 && file[n] == '/')
        return file + n + 1;
    return file;
}

static void keep_record(struct ci_record *c, const struct loss_record *r)
{
    memset(c, 0, sizeof *c);
    c->cls = r->cls;
    c->bytes = r->bytes;
    c->blocks = r->blocks;
    c->indirect = r->indirect;
    c->has_stack = r->frames != NULL;
    if (r->frames && r->frames->n) {
        c->frames.n = c->frames.cap = r->frames->n;
        c->frames.v = xmalloc(r->frames->n * sizeof *c->frames.v);
        memcpy(c->frames.v, r->frames->v, r->frames->n * sizeof *c->frames.v);
        /* The module paths and the log's names go with the log. */
        for (size_t i = 0; i < c->frames.n; i++) {
            struct view_frame *f = &c->frames.v[i];
            f->function = f->function ? xstrdup(f->function) : NULL;
            f->file = f->file ? xstrdup(f->file) : NULL;
            f->module = f->module ? xstrdup(f->module) : NULL;
        }
    }
    snprintf(c->fp, sizeof c->fp, "%s", r->fingerprint);
    c->baseline = r->baseline;
    c->failing = r->failing;
    c->suppressed_by = r->suppressed_by ? xstrdup(r->suppressed_by) : NULL;
}

/* The generated suppressions of log L, under its text report (OUT). */
static void print_suppressions(FILE *out, const struct ci_log *l)
{
    int any = 0;
    for (size_t i = 0; i < l->n; i++)
        any |= l->r[i].pattern != NULL;
    if (!any)
        return;
    fputs("\nSuppressions for the leaks above (--gen-suppressions; pass "
          "them back with --suppressions FILE):\n",
          out);
    gensupp_write(out, l, 1);
}

/* Baselines and generated suppressions are made of verdicts: a log
 * without them is refused (the exit status could not honour them). */
static int needs_verdicts(const struct options *o)
{
    return o->baseline || o->write_baseline || o->gen_supp;
}

static int ci_findings(struct writer *w, const struct findings *f)
{
    if (!f->has_verdicts && needs_verdicts(opt)) {
        diag(w->log, 0,
             "no reachability verdicts (MEMLEAK_CONFIG=reach=0, or a log of "
             "glibc's mtrace): baselines and --gen-suppressions need them");
        return -1;
    }
    rep.binary = w->binary;
    rep.logs = xrealloc(rep.logs, (rep.nlogs + 1) * sizeof *rep.logs);
    struct ci_log *l = &rep.logs[rep.nlogs++];
    memset(l, 0, sizeof *l);
    l->log = xstrdup(w->log);
    /* A log with verdicts but no block live at the end has no records;
     * one without verdicts, its blocks not freed (noverdict.h). */
    struct nv_records nv = { .r = f->records, .n = 0 };
    if (f->classified)
        nv.n = f->nrecords;
    else if (!f->has_verdicts)
        nv_build(&nv, f);
    l->r = xcalloc(nv.n + 1, sizeof *l->r);
    for (size_t i = 0; i < nv.n; i++) {
        keep_record(&l->r[l->n], &nv.r[i]);
        l->r[l->n++].noverdict = !f->classified;
    }
    if (!f->classified && !f->has_verdicts)
        nv_destroy(&nv);
    ci_keep_resources(l, &f->resources,
                      (opt->fail_on & (1 << CLASS_DEFINITE)) != 0);
    if (opt->gen_supp)
        gensupp_assign(l);
    if (opt->gen_supp && !opt->gen_supp_file)
        print_suppressions(w->out, l);
    return 0;
}

const struct writer_ops ci_writer = { .name = "ci", .findings = ci_findings };

/* The baseline file: each reported leak's fingerprint once, with the
 * place it was allocated at as a comment. */
static int baseline_write(FILE *out, const struct ci_report *r)
{
    fputs("# mtrace-check baseline: the fingerprints of known leaks, one a "
          "line\n# (mtrace-check --baseline FILE; doc/ci.md)\n",
          out);
    struct strmap seen; /* each fingerprint once */
    strmap_init(&seen);
    for (size_t k = 0; k < r->nlogs; k++)
        for (size_t i = 0; i < r->logs[k].n; i++) {
            const struct ci_record *c = &r->logs[k].r[i];
            if (!ci_reported(c))
                continue;
            void **slot =
                strmap_put(&seen, (struct slice){ c->fp, strlen(c->fp) });
            if (*slot)
                continue;
            *slot = (void *)1;
            fprintf(out, "%s  # %s", c->fp, class_words(c->cls));
            const struct view_frame *f = fp_own_frame(&c->frames);
            if (f && f->function)
                fprintf(out, ", %s", f->function);
            if (f && f->file)
                fprintf(out, " (%s)", ci_relpath(f->file));
            putc('\n', out);
        }
    strmap_destroy(&seen);
    return ferror(out) ? -1 : 0;
}

static int write_file(const char *path, const char *what,
                      int (*writer)(FILE *, const struct ci_report *))
{
    if (path == NULL)
        return 0;
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        diag(path, 0, "cannot write the %s: %s", what, strerror(errno));
        return -1;
    }
    errno = 0;
    int err = writer(f, &rep);
    if (fclose(f) != 0 || err) {
        diag(path, 0, "cannot write the %s: %s", what,
             strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

static int write_suppressions(FILE *out, const struct ci_report *r)
{
    return gensupp_write(out, r->logs, r->nlogs);
}

static void release(void)
{
    for (size_t k = 0; k < rep.nlogs; k++) {
        for (size_t i = 0; i < rep.logs[k].n; i++) {
            struct view_frames *f = &rep.logs[k].r[i].frames;
            for (size_t j = 0; j < f->n; j++) {
                free((char *)f->v[j].function);
                free((char *)f->v[j].file);
                free((char *)f->v[j].module);
            }
            free(f->v);
            free(rep.logs[k].r[i].suppressed_by);
            free(rep.logs[k].r[i].pattern);
        }
        free(rep.logs[k].r);
        ci_release_resources(&rep.logs[k]);
        free(rep.logs[k].log);
    }
    free(rep.logs);
    baseline_destroy(&base);
    free(cwd);
}

int ci_end(void)
{
    int err = 0;
    err |= write_file(opt->sarif, "SARIF file", sarif_write);
    err |= write_file(opt->junit, "JUnit file", junit_write);
    err |= write_file(opt->codequality, "Code Quality file", codequality_write);
    err |= write_file(opt->write_baseline, "baseline", baseline_write);
    err |= write_file(opt->gen_supp_file, "suppressions", write_suppressions);
    release();
    return err ? -1 : 0;
}
