/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resjson.c - the "resources" member of a log's JSON object (see
 * resout.h and doc/json.md):
 *
 *   "resources":{"records":N,"not_released":N,
 *     "groups":[{"kind":"fd","count":1,"ids":[5],"stack_id":3,
 *                "frames":[...]}],
 *     "warnings":[{"kind":"lock","id":42,"line":14,
 *                  "what":"release_unknown","frames":[...]}]}
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/json.h"
#include "output/resout.h"
#include "output/writer.h"

#include <inttypes.h>

static void group(FILE *out, const struct res_group *g, int first)
{
    fputs(first ? "\n{\"kind\":" : ",\n{\"kind\":", out);
    json_cstring(out, g->kind);
    fprintf(out, ",\"count\":%zu,\"ids\":[", g->nids);
    for (size_t i = 0; i < g->nids; i++)
        fprintf(out, "%s%" PRIu64, i ? "," : "", g->ids[i]);
    fputs("],\"stack_id\":", out);
    if (g->stack >= 0)
        fprintf(out, "%" PRIu64, g->sid);
    else
        fputs("null", out);
    fputs(",\"frames\":", out);
    report_json_frames(out, g->frames);
    putc('}', out);
}

static void warning(FILE *out, const struct res_warning_view *w, int first)
{
    fputs(first ? "\n{\"kind\":" : ",\n{\"kind\":", out);
    json_cstring(out, w->kind);
    fprintf(out, ",\"id\":%" PRIu64 ",\"line\":%" PRIu64 ",\"what\":\"%s\"",
            w->id, w->line,
            w->what == RES_RELEASE_UNKNOWN ? "release_unknown"
                                           : "acquire_duplicate");
    fputs(",\"frames\":", out);
    report_json_frames(out, w->frames);
    putc('}', out);
}

void res_json(FILE *out, const struct findings *f)
{
    const struct res_findings *r = &f->resources;
    if (r->records == 0)
        return;
    fprintf(out,
            ",\n\"resources\":{\"records\":%" PRIu64
            ",\"not_released\":%" PRIu64 ",\"groups\":[",
            r->records, r->held);
    for (size_t i = 0; i < r->ngroups; i++)
        group(out, &r->groups[i], i == 0);
    fputs("],\"warnings\":[", out);
    for (size_t i = 0; i < r->nwarnings; i++)
        warning(out, &r->warnings[i], i == 0);
    fputs("]}", out);
}
