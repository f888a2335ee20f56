/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cires.c - resources not released (findings.h's resources, "#r"
 * records) as findings of the CI outputs (--sarif, --junit,
 * --codequality; see cireport.h, doc/ci.md): one record per group of a
 * kind and acquiring stack, kept beside the log's loss records
 * (ci_log.res), with the rule/check id "resource-not-released".
 *
 * Its stack leaves out the frames of memleak.h's inline wrappers at the
 * top (memleak_resource_acquire), so that it is shown at the program's
 * own function, as a pool block is.  Its fingerprint hashes the kind with
 * the stack's (fingerprint.h: function and source file names, no
 * addresses or lines), so that an fd and a lock taken in one function are
 * two findings, each stable across rebuilds.  It fails the run when
 * definitely lost blocks do (--fail-on), as the text report's exit status
 * counts it.  Baselines and generated suppressions do not take them.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cires.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Whether F is an inline frame of memleak.h's (the client API's
 * wrappers): left out of a resource's stack. */
static int api_frame(const struct view_frame *f)
{
    return f->inlined && f->file && strcmp(base_name(f->file), "memleak.h") == 0;
}

static void copy_frames(struct ci_record *c, const struct view_frames *v)
{
    size_t skip = 0;
    c->has_stack = v != NULL;
    if (v == NULL)
        return;
    while (skip + 1 < v->n && api_frame(&v->v[skip]))
        skip++;
    c->frames.n = c->frames.cap = v->n - skip;
    c->frames.v = xcalloc(c->frames.n + 1, sizeof *c->frames.v);
    for (size_t i = 0; i < c->frames.n; i++) {
        struct view_frame *f = &c->frames.v[i];
        *f = v->v[skip + i];
        f->function = f->function ? xstrdup(f->function) : NULL;
        f->file = f->file ? xstrdup(f->file) : NULL;
        f->module = f->module ? xstrdup(f->module) : NULL;
    }
}

/* 64-bit FNV-1a of S (its NUL too, so that "ab"+"c" is not "a"+"bc"). */
static uint64_t fnv(uint64_t h, const char *s)
{
    do {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    } while (*s++);
    return h;
}

/* Each record's fingerprint: its kind and its stack's (fingerprint.h). */
static void fingerprints(struct ci_record *r, size_t n)
{
    struct fp_item *items = xcalloc(n + 1, sizeof *items);
    for (size_t i = 0; i < n; i++) {
        items[i].frames = r[i].has_stack ? &r[i].frames : NULL;
        items[i].stack = (int32_t)i;
    }
    fingerprint_assign(items, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = fnv(fnv(0xcbf29ce484222325ull, r[i].resource), items[i].fp);
        snprintf(r[i].fp, sizeof r[i].fp, "%016" PRIx64, h);
    }
    free(items);
}

void ci_keep_resources(struct ci_log *l, const struct res_findings *res,
                       int failing)
{
    l->res = xcalloc(res->ngroups + 1, sizeof *l->res);
    for (size_t i = 0; i < res->ngroups; i++) {
        const struct res_group *g = &res->groups[i];
        struct ci_record *c = &l->res[l->nres++];
        c->resource = xstrdup(g->kind);
        c->blocks = g->nids;
        c->cls = CLASS_DEFINITE;
        c->failing = failing;
        copy_frames(c, g->frames);
    }
    fingerprints(l->res, l->nres);
}

void ci_resource_message(FILE *out, const struct ci_record *r)
{
    fprintf(out, "%" PRIu64 " %s not released", r->blocks, r->resource);
    const struct view_frame *f = fp_own_frame(&r->frames);
    if (f && f->function)
        fprintf(out, ", acquired in %s", f->function);
}

void ci_release_resources(struct ci_log *l)
{
    for (size_t i = 0; i < l->nres; i++) {
        struct view_frames *f = &l->res[i].frames;
        for (size_t j = 0; j < f->n; j++) {
            free((char *)f->v[j].function);
            free((char *)f->v[j].file);
            free((char *)f->v[j].module);
        }
        free(f->v);
        free(l->res[i].resource);
    }
    free(l->res);
}
