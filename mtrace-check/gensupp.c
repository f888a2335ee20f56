/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gensupp.c - --gen-suppressions: one LeakSanitizer-syntax suppression
 * per leak loss record, as narrow as the log allows.  A suppression
 * matches a frame's function, source file or module (suppress.h), so the
 * pattern is one function name anchored at both ends (^NAME$): never a
 * file's or a library's.  The function is the innermost frame of the
 * program's own code (fingerprint.h) whose name appears in no other
 * loss record's stack, so that the suppression silences this record and
 * nothing else the log holds; when every own frame is shared, the
 * innermost one is taken and the comment says which other records it
 * also matches.  (The source line cannot be named: suppressions see
 * functions, files and modules only.)
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "cireport.h"
#include "suppress.h"
#include "util.h"

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

/* How many records other than those of fingerprint FP PATTERN matches. */
static size_t others_matched(const struct ci_log *l, const char *fp,
                             char *pattern)
{
    struct suppression s = { pattern, 0, 0 };
    struct suppressions one = { &s, 1 };
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->r[i].fp, fp) != 0 &&
            supp_match(&one, &l->r[i].frames) >= 0)
            n++;
    return n;
}

static char *pattern_for(const struct ci_log *l, const struct ci_record *r)
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
        if (others_matched(l, r->fp, p) == 0) {
            free(first);
            return p;
        }
        if (first == NULL)
            first = p;
        else
            free(p);
    }
    return first;
}

void gensupp_assign(struct ci_log *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (ci_reported(&l->r[i]))
            l->r[i].pattern = pattern_for(l, &l->r[i]);
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
    size_t shared = others_matched(l, r->fp, r->pattern);
    if (shared)
        fprintf(out,
                "# (every function of this stack is in other loss records' "
                "stacks too: this also matches %zu of them)\n",
                shared);
}

/* Whether an earlier record of LOGS[0..K], record I, wrote PATTERN. */
static int written(const struct ci_log *logs, size_t k, size_t i,
                   const char *pattern)
{
    for (size_t a = 0; a <= k; a++)
        for (size_t b = 0; b < (a == k ? i : logs[a].n); b++)
            if (logs[a].r[b].pattern &&
                strcmp(logs[a].r[b].pattern, pattern) == 0)
                return 1;
    return 0;
}

int gensupp_write(FILE *out, const struct ci_log *logs, size_t n)
{
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < logs[k].n; i++) {
            const struct ci_record *r = &logs[k].r[i];
            if (r->pattern == NULL && ci_reported(r))
                fprintf(out, "# %s: %" PRIu64 " bytes %s, fingerprint %s: "
                        "no function name in its stack to suppress it by\n",
                        logs[k].log, r->bytes, class_words(r->cls), r->fp);
            if (r->pattern == NULL || written(logs, k, i, r->pattern))
                continue;
            comment(out, &logs[k], r);
            fprintf(out, "leak:%s\n", r->pattern);
        }
    return ferror(out) ? -1 : 0;
}
