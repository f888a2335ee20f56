/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growthtext.c - see growthtext.h.  Formats only: the analysis is
 * findings/growth.c's.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/growthtext.h"
#include "output/vgreport.h"
#include "output/writer.h"

#include <inttypes.h>
#include <string.h>

/* "6 scans (4 periodic); the longest stalled the program 1.2 ms" */
static void scans_line(FILE *out, const struct findings *f)
{
    const struct scan_series *s = f->series;
    size_t periodic = 0;
    uint64_t stall = 0;
    int costed = 0;
    for (size_t i = 0; i < s->nscans; i++) {
        periodic += strcmp(s->scans[i].trigger, "periodic") == 0;
        if (s->scans[i].has_cost && i < f->nseries) {
            costed = 1;
            if (s->scans[i].stall_us > stall)
                stall = s->scans[i].stall_us;
        }
    }
    fprintf(out, "(%zu scans read, %zu of them periodic", f->nseries,
            periodic);
    if (costed)
        fprintf(out, "; the longest stalled the program %.1f ms",
                (double)stall / 1e3);
    fputs("; the scan at exit is not counted)\n", out);
}

static void growth_entry(FILE *out, const struct growth *g)
{
    char a[32], b[32];
    fprintf(out, "\n%s bytes still reachable, from %s over the last %u scans",
            vg_commas(g->last_bytes, a), vg_commas(g->first_bytes, b),
            g->scans);
    if (g->has_rate)
        fprintf(out, " (%.2f s): %.0f bytes/s", g->seconds,
                g->bytes_per_second);
    putc('\n', out);
    if (g->frames == NULL)
        fputs("    (no stack recorded)\n", out);
    for (size_t i = 0; g->frames && i < g->frames->n; i++)
        report_text_frame(out, i, &g->frames->v[i]);
    fprintf(out, "  fingerprint %s\n", g->fingerprint);
}

void growth_text(FILE *out, const struct findings *f)
{
    if (f->series == NULL || f->nseries < GROWTH_MIN_SCANS)
        return;
    if (f->ngrowth == 0) {
        fprintf(out, "\nNo allocation stack's still reachable memory rose "
                     "at each of the last %d scans ",
                GROWTH_MIN_SCANS);
        scans_line(out, f);
        return;
    }
    fprintf(out, "\nStill reachable and growing: %zu allocation stacks held "
                 "more at each of the last %d or more scans ",
            f->ngrowth, GROWTH_MIN_SCANS);
    scans_line(out, f);
    for (size_t i = 0; i < f->ngrowth; i++)
        growth_entry(out, &f->growth[i]);
}
