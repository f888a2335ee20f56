/* SPDX-License-Identifier: GPL-3.0-or-later */
/* codequality.c - --codequality FILE: the leaks as GitLab's Code Quality
 * report (artifacts:reports:codequality), a JSON array of Code Climate
 * issues: description, check_name (the class), fingerprint, severity,
 * location {path, lines {begin}}.  GitLab shows the issues a merge
 * request adds or fixes by comparing fingerprints with the target
 * branch's, so the fingerprint is the loss record's stable one
 * (fingerprint.h) with the class after a colon, each written once (the
 * same leak in two logs of a run is one issue).  The path is relative to
 * the working directory (the checkout), as GitLab wants it.  Severity:
 * "critical" for a definitely lost record that fails the run, "major"
 * for another that fails it, "minor" for a leak that does not, "info"
 * for one in the baseline.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cifields.h"
#include "base/diag.h"
#include "output/json.h"
#include "base/maps.h"

#include <stdlib.h>
#include <string.h>

static const char *severity(const struct ci_record *r)
{
    if (r->baseline)
        return "info";
    if (!r->failing)
        return "minor";
    if (r->resource)
        return "major";
    return r->cls == CLASS_DEFINITE || r->noverdict ? "critical" : "major";
}

static void issue(FILE *out, const struct ci_report *rep,
                  const struct ci_log *l, const struct ci_record *r)
{
    fputs("{\"type\":\"issue\",\"categories\":[\"Bug Risk\"],\"description\":",
          out);
    ci_message_json(out, rep, l, r);
    fprintf(out,
            ",\"check_name\":\"%s\",\"fingerprint\":\"%s:%s\","
            "\"severity\":\"%s\",\"location\":{\"path\":",
            ci_kind_id(r), r->fp, ci_kind_id(r), severity(r));
    unsigned line;
    const char *file = ci_source(r, &line);
    const struct view_frame *f = fp_own_frame(&r->frames);
    json_cstring(out, file ? file : f && f->module ? f->module : l->log);
    fprintf(out, ",\"lines\":{\"begin\":%u}}}", line ? line : 1);
}

/* Whether an issue of R's fingerprint and class was written (SEEN). */
static int seen(struct strmap *seen, const struct ci_record *r)
{
    char key[FP_LEN + 32];
    int n = snprintf(key, sizeof key, "%s:%s", r->fp, ci_kind_id(r));
    void **slot = strmap_put(seen, (struct slice){ key, (size_t)n });
    if (*slot)
        return 1;
    *slot = (void *)1;
    return 0;
}

int codequality_write(FILE *out, const struct ci_report *rep)
{
    int first = 1;
    struct strmap written;
    strmap_init(&written);
    putc('[', out);
    for (size_t k = 0; k < rep->nlogs; k++)
        for (size_t i = 0; i < rep->logs[k].n + rep->logs[k].nres; i++) {
            const struct ci_log *l = &rep->logs[k];
            const struct ci_record *r =
                i < l->n ? &l->r[i] : &l->res[i - l->n];
            if (!ci_reported(r) || seen(&written, r))
                continue;
            fputs(first ? "\n" : ",\n", out);
            first = 0;
            issue(out, rep, l, r);
        }
    fputs("\n]\n", out);
    strmap_destroy(&written);
    return ferror(out) ? -1 : 0;
}
