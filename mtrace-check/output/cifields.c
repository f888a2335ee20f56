/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cifields.c - see cifields.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cifields.h"
#include "base/diag.h"
#include "findings/noverdict.h"
#include "output/json.h"
#include "output/cires.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void ci_message(FILE *out, const struct ci_report *rep, const struct ci_log *l,
                const struct ci_record *r)
{
    if (r->resource)
        ci_resource_message(out, r);
    else if (r->cls == CLASS_UNKNOWN && !r->noverdict)
        fprintf(out, "%" PRIu64 " bytes in %" PRIu64
                " blocks are not classified (allocated after the last scan)",
                r->bytes, r->blocks);
    else
        fprintf(out, "%" PRIu64 " bytes in %" PRIu64 " blocks are %s",
                r->bytes, r->blocks, ci_kind_words(r));
    if (r->indirect)
        fprintf(out, " (and %" PRIu64 " bytes indirectly through them)",
                r->indirect);
    const struct view_frame *f = fp_own_frame(&r->frames);
    if (f && f->function && !r->resource)
        fprintf(out, ", allocated in %s", f->function);
    unsigned line;
    const char *file = ci_source(r, &line);
    if (file && line)
        fprintf(out, " (%s:%u)", file, line);
    else if (!r->has_stack)
        fputs(" (no stack recorded)", out);
    if (rep->nlogs > 1)
        fprintf(out, " [log %s]", l->log);
}

const char *ci_kind_id(const struct ci_record *r)
{
    return r->resource ? CI_RESOURCE_ID
           : r->noverdict ? nv_id
                          : class_name(r->cls);
}

const char *ci_kind_words(const struct ci_record *r)
{
    return r->resource ? "not released"
           : r->noverdict ? nv_words
                          : class_words(r->cls);
}

void ci_uri(FILE *out, const char *path)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/+";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (strchr(safe, *p))
            putc(*p, out);
        else
            fprintf(out, "%%%02X", *p);
}

const char *ci_source(const struct ci_record *r, unsigned *line)
{
    const struct view_frame *f = fp_own_frame(&r->frames);
    *line = f && f->file ? f->line : 0;
    return f && f->file ? ci_relpath(f->file) : NULL;
}

void ci_message_json(FILE *out, const struct ci_report *rep,
                     const struct ci_log *l, const struct ci_record *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        diag_fatal(NULL, "out of memory");
    ci_message(m, rep, l, r);
    fclose(m);
    json_cstring(out, text);
    free(text);
}
