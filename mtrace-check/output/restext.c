/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restext.c - the text report's resources section (see resout.h):
 *
 *   Resources not released, by kind and acquiring stack:
 *
 *   1 fd not released (5) acquired from:
 *       #0 main at prog.c:12 (prog+0x11db)
 *
 * then each warning in the manner of the Perl script's "Free ... was
 * never alloc'd", with the stack of the record it is about.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/resout.h"
#include "output/writer.h"

#include <inttypes.h>

enum { IDS_SHOWN = 8 };

static void frames(FILE *out, const struct view_frames *v)
{
    if (v == NULL) {
        fputs("    (no stack recorded)\n", out);
        return;
    }
    if (v->n == 0)
        fputs("    (empty stack)\n", out);
    for (size_t k = 0; k < v->n; k++)
        report_text_frame(out, k, &v->v[k]);
}

static void group(FILE *out, const struct res_group *g)
{
    char buf[24];
    fprintf(out, "\n%zu %s not released (", g->nids, g->kind);
    for (size_t i = 0; i < g->nids && i < IDS_SHOWN; i++)
        fprintf(out, "%s%s", i ? ", " : "", resfind_id(g->ids[i], buf));
    if (g->nids > IDS_SHOWN)
        fputs(", ...", out);
    fputs(") acquired from:\n", out);
    frames(out, g->frames);
}

static void warning(FILE *out, const struct res_warning_view *w)
{
    char buf[24];
    if (w->what == RES_RELEASE_UNKNOWN)
        fprintf(out, "\n- %s %s Release %" PRIu64 " was never acquired:\n",
                w->kind, resfind_id(w->id, buf), w->line);
    else
        fprintf(out, "\n+ %s %s Acquire %" PRIu64
                     " duplicate (already held), at:\n",
                w->kind, resfind_id(w->id, buf), w->line);
    frames(out, w->frames);
}

void res_text(FILE *out, const struct findings *f)
{
    const struct res_findings *r = &f->resources;
    if (r->records == 0)
        return;
    if (r->ngroups == 0)
        fputs("\nAll resources were released.\n", out);
    else
        fputs("\nResources not released, by kind and acquiring stack:\n",
              out);
    for (size_t i = 0; i < r->ngroups; i++)
        group(out, &r->groups[i]);
    for (size_t i = 0; i < r->nwarnings; i++)
        warning(out, &r->warnings[i]);
}
