/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growthhtml.c - see growthhtml.h.  The page draws it (html/page.js,
 * renderGrowth); formats only, the analysis is findings/growth.c's.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/growthhtml.h"
#include "output/json.h"

#include <inttypes.h>
#include <string.h>

/* A scan's time on the page's axis: ms since the log's first "#t". */
static int scan_ms(const struct findings *f, const struct series_scan *sc,
                   double *ms)
{
    const struct timeline *tl = f->tl;
    if (!tl || !tl->has_time || !sc->has_time || sc->t_ns < tl->t_origin)
        return 0;
    *ms = (double)(sc->t_ns - tl->t_origin) / 1e6;
    return 1;
}

static void put_times(FILE *o, const struct findings *f)
{
    double ms = 0;
    for (size_t i = 0; i < f->nseries; i++)
        if (!scan_ms(f, &f->series->scans[i], &ms)) {
            fputs("\"t\":null", o);
            return;
        }
    fputs("\"t\":[", o);
    for (size_t i = 0; i < f->nseries; i++) {
        scan_ms(f, &f->series->scans[i], &ms);
        fprintf(o, "%s%.3f", i ? "," : "", ms);
    }
    putc(']', o);
}

/* "function (file:line)" of the frame the leak is shown at. */
static void put_name(FILE *o, const struct growth *g)
{
    const struct view_frame *v = g->frames ? fp_own_frame(g->frames) : NULL;
    char buf[512];
    if (v == NULL) {
        json_cstring(o, "[no stack recorded]");
        return;
    }
    const char *fn = v->function ? v->function : "??";
    const char *slash = v->file ? strrchr(v->file, '/') : NULL;
    if (v->file)
        snprintf(buf, sizeof buf, "%s (%s:%u)", fn, slash ? slash + 1 : v->file,
                 v->line);
    else
        snprintf(buf, sizeof buf, "%s", fn);
    json_cstring(o, buf);
}

static void put_stack(FILE *o, const struct findings *f,
                      const struct growth *g)
{
    fputs("{\"name\":", o);
    put_name(o, g);
    fprintf(o, ",\"fingerprint\":\"%s\",\"rate\":", g->fingerprint);
    if (g->has_rate)
        fprintf(o, "%.1f", g->bytes_per_second);
    else
        fputs("null", o);
    fputs(",\"bytes\":[", o);
    for (size_t i = 0; i < f->nseries; i++) {
        const struct series_row *r = series_row(&f->series->scans[i], g->stack);
        fprintf(o, "%s%" PRIu64, i ? "," : "", r ? r->reach : 0);
    }
    fputs("]}", o);
}

void growth_html_data(FILE *o, const struct findings *f)
{
    if (f->series == NULL || f->nseries < GROWTH_MIN_SCANS) {
        fputs(",\n\"growth\":null", o);
        return;
    }
    fputs(",\n\"growth\":{", o);
    put_times(o, f);
    fputs(",\"stacks\":[", o);
    for (size_t i = 0; i < f->ngrowth && i < GROWTH_HTML_TOP; i++) {
        fputs(i ? ",\n" : "\n", o);
        put_stack(o, f, &f->growth[i]);
    }
    fputs("]}", o);
}
