/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growthjson.c - see growthjson.h.  Formats only: the analysis is
 * findings/growth.c's.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/growthjson.h"
#include "output/writer.h"

#include <inttypes.h>

/* The stack's still reachable bytes at each scan read. */
static void bytes_at_scans(FILE *out, const struct findings *f,
                           const struct growth *g)
{
    fputs(",\"bytes_at_scans\":[", out);
    for (size_t i = 0; i < f->nseries; i++) {
        const struct series_row *r = series_row(&f->series->scans[i], g->stack);
        fprintf(out, "%s%" PRIu64, i ? "," : "", r ? r->reach : 0);
    }
    putc(']', out);
}

static void growth_entry(FILE *out, const struct findings *f,
                         const struct growth *g)
{
    const struct series_scan *a = &f->series->scans[g->first_scan];
    const struct series_scan *b = &f->series->scans[g->last_scan];
    fprintf(out,
            "{\"first_bytes\":%" PRIu64 ",\"last_bytes\":%" PRIu64
            ",\"scans\":%u,\"first_scan\":%" PRIu64 ",\"last_scan\":%" PRIu64,
            g->first_bytes, g->last_bytes, g->scans, a->seq, b->seq);
    if (g->has_rate)
        fprintf(out, ",\"seconds\":%.6f,\"bytes_per_second\":%.1f",
                g->seconds, g->bytes_per_second);
    else
        fputs(",\"seconds\":null,\"bytes_per_second\":null", out);
    fprintf(out, ",\"fingerprint\":\"%s\",\"stack_id\":", g->fingerprint);
    if (g->stack >= 0)
        fprintf(out, "%" PRIu64, g->sid);
    else
        fputs("null", out);
    bytes_at_scans(out, f, g);
    fputs(",\"frames\":", out);
    report_json_frames(out, g->frames);
    putc('}', out);
}

void growth_json(FILE *out, const struct findings *f)
{
    if (f->series == NULL || f->nseries < GROWTH_MIN_SCANS)
        return;
    fputs("],\n\"growth\":[", out);
    for (size_t i = 0; i < f->ngrowth; i++) {
        fputs(i ? ",\n" : "\n", out);
        growth_entry(out, f, &f->growth[i]);
    }
}
