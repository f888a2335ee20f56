/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gensupp.c - --gen-suppressions: one LeakSanitizer-syntax suppression
 * per leak loss record, as narrow as the log allows.  A suppression
 * matches a frame's function, source file or module (suppress.h), so the
 * pattern is one function name anchored at both ends (^NAME$): never a
 * file's or a library's.  The function is the innermost frame of the
 * program's own code (fingerprint.h) whose name appears in no other
 * loss record's stack, so that the suppression silences this record and
 * nothing else the log holds; when every own frame is shared, the
 * innermost one is taken and the comment says how many other records
 * it also matches.  (The source line cannot be named: suppressions see
 * functions, files and modules only.)  Which names are in which stacks
 * is counted once per log, so a log of thousands of loss records costs
 * a pass over their frames, not a comparison of every pair.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cireport.h"
#include "base/maps.h"
#include "findings/suppress.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* "^NAME$", or NULL when NAME cannot be written as a pattern. */
static char *anchored(const char *name)
{
    if (name == NULL || *name == '\0' || strpbrk(name, "^$\n") != NULL)
        return NULL;
    size_t n = strlen(name);
    char *p = xmalloc(n + 3);
    p[0] = '^';
    memcpy(p + 1, name, n);
    p[n + 1] = '$';
    p[n + 2] = '\0';
    return p;
}

/* Which functions are in which loss records' stacks: for each function
 * name, the number of distinct fingerprints whose stacks hold it (a
 * linear pass: a log can hold thousands of loss records). */
struct names {
    struct strmap count; /* name -> (uintptr_t) fingerprints */
    struct strmap pairs; /* "FP\tname" -> seen */
};

static void names_build(struct names *n, const struct ci_log *l)
{
    strmap_init(&n->count);
    strmap_init(&n->pairs);
    for (size_t i = 0; i < l->n; i++)
        for (size_t k = 0; k < l->r[i].frames.n; k++) {
            const char *f = l->r[i].frames.v[k].function;
            if (f == NULL)
                continue;
            char *key = xmalloc(strlen(l->r[i].fp) + strlen(f) + 2);
            sprintf(key, "%s\t%s", l->r[i].fp, f);
            void **seen = strmap_put(&n->pairs, (struct slice){ key, strlen(key) });
            free(key);
            if (*seen)
                continue;
            *seen = (void *)1;
            void **c = strmap_put(&n->count, (struct slice){ f, strlen(f) });
            *c = (void *)((uintptr_t)*c + 1);
        }
}

static void names_destroy(struct names *n)
{
    strmap_destroy(&n->count);
    strmap_destroy(&n->pairs);
}

/* How many records other than those of fingerprint FP PATTERN matches,
 * by a pattern match on every frame (suppress.h). */
static size_t others_matched(const struct ci_log *l, const char *fp,
                             char *pattern)
{
    struct suppression s = { .pattern = pattern };
    struct suppressions one = { &s, 1 };
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->r[i].fp, fp) != 0 &&
            supp_match(&one, &l->r[i].frames) >= 0)
            n++;
    return n;
}

/* The same for "^NAME$": the other fingerprints whose stacks hold NAME,
 * from the table; a name with a '*' in it (C++ "f(char*)") is a pattern
 * with a wildcard, matched for real. */
static size_t others_named(const struct names *n, const struct ci_log *l,
                           const char *fp, const char *name, char *pattern)
{
    if (strchr(name, '*'))
        return others_matched(l, fp, pattern);
    void **c = strmap_get((struct strmap *)&n->count,
                          (struct slice){ name, strlen(name) });
    return c ? (uintptr_t)*c - 1 : 0;
}

static char *pattern_for(const struct names *n, const struct ci_log *l,
                         const struct ci_record *r, size_t *shared)
{
    char *first = NULL;
    int own = 0;
    for (size_t i = 0; i < r->frames.n; i++)
        own |= !fp_frame_is_runtime(&r->frames.v[i]);
    for (size_t i = 0; i < r->frames.n; i++) {
        const struct view_frame *f = &r->frames.v[i];
        if (own && fp_frame_is_runtime(f))
            continue;
        char *p = anchored(f->function);
        if (p == NULL)
            continue;
        size_t others = others_named(n, l, r->fp, f->function, p);
        if (others == 0) {
            free(first);
            *shared = 0;
            return p;
        }
        if (first == NULL) {
            first = p;
            *shared = others;
        } else {
            free(p);
        }
    }
    return first;
}

void gensupp_assign(struct ci_log *l)
{
    struct names n;
    names_build(&n, l);
    for (size_t i = 0; i < l->n; i++)
        if (ci_reported(&l->r[i]))
            l->r[i].pattern = pattern_for(&n, l, &l->r[i], &l->r[i].shared);
    names_destroy(&n);
}

/* The comment above a suppression: what it was generated from. */
static void comment(FILE *out, const struct ci_log *l,
                    const struct ci_record *r)
{
    const struct view_frame *f = fp_own_frame(&r->frames);
    fprintf(out, "# %s: %" PRIu64 " bytes %s, fingerprint %s", l->log,
            r->bytes, class_words(r->cls), r->fp);
    if (f && f->file)
        fprintf(out, ", %s:%u", ci_relpath(f->file), f->line);
    putc('\n', out);
    if (r->shared)
        fprintf(out,
                "# (every function of this stack is in other loss records' "
                "stacks too: this also matches %zu of them)\n",
                r->shared);
}

int gensupp_write(FILE *out, const struct ci_log *logs, size_t n)
{
    struct strmap written; /* each line once */
    strmap_init(&written);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < logs[k].n; i++) {
            const struct ci_record *r = &logs[k].r[i];
            if (r->pattern == NULL && ci_reported(r))
                fprintf(out, "# %s: %" PRIu64 " bytes %s, fingerprint %s: "
                        "no function name in its stack to suppress it by\n",
                        logs[k].log, r->bytes, class_words(r->cls), r->fp);
            if (r->pattern == NULL)
                continue;
            void **seen = strmap_put(
                &written, (struct slice){ r->pattern, strlen(r->pattern) });
            if (*seen)
                continue;
            *seen = (void *)1;
            comment(out, &logs[k], r);
            fprintf(out, "leak:%s\n", r->pattern);
        }
    strmap_destroy(&written);
    return ferror(out) ? -1 : 0;
}
