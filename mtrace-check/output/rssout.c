/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rssout.c - the resident memory a log sampled ("#t ... rss-anon=
 * rss-file=", doc/format.md "Time") in the reports (see resout.h):
 *
 *   text:  Peak resident memory (RSS): 105,123,456 bytes (104,857,600
 *          anonymous, 265,856 file-backed or shared), the largest of 14
 *          samples
 *   JSON:  "rss":{"samples":14,"peak_bytes":N,"peak_anon":N,"peak_file":N}
 *   HTML:  "rss":{"peak":N,"peak_anon":N,"peak_file":N,"peak_t":MS,
 *                 "anon":[...],"file":[...]}  (by bucket of the series)
 *
 * The samples are at most MTF_RSS_STEP_NS apart while the program logs,
 * and taken at every report, fork, exec and exit: the peak is the largest
 * sample, not the kernel's high-water mark.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/resout.h"
#include "output/vgreport.h"

#include <inttypes.h>

/* The peak's time since the log's first "#t", in ns (0 without time). */
static uint64_t peak_since_start(const struct findings *f,
                                 const struct timeline *tl)
{
    if (tl == NULL || !tl->has_time || f->rss->peak_ns < tl->t_origin)
        return 0;
    return f->rss->peak_ns - tl->t_origin;
}

void rss_text(FILE *out, const struct findings *f)
{
    const struct rss_stats *r = f->rss;
    char a[32], b[32], c[32];
    if (r == NULL || r->samples == 0)
        return;
    fprintf(out,
            "\nPeak resident memory (RSS): %s bytes (%s anonymous, %s "
            "file-backed or shared), the largest of %" PRIu64 " samples\n",
            vg_commas(r->peak_anon + r->peak_file, a), vg_commas(r->peak_anon, b),
            vg_commas(r->peak_file, c), r->samples);
}

void rss_json(FILE *out, const struct findings *f)
{
    const struct rss_stats *r = f->rss;
    if (r == NULL || r->samples == 0)
        return;
    fprintf(out,
            ",\n\"rss\":{\"samples\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
            ",\"peak_anon\":%" PRIu64 ",\"peak_file\":%" PRIu64 "}",
            r->samples, r->peak_anon + r->peak_file, r->peak_anon,
            r->peak_file);
}

void rss_html(FILE *out, const struct findings *f, const struct timeline *tl)
{
    const struct rss_stats *r = f->rss;
    if (r == NULL || r->samples == 0 || !tl->has_rss)
        return;
    fprintf(out,
            ",\n\"rss\":{\"peak\":%" PRIu64 ",\"peak_anon\":%" PRIu64
            ",\"peak_file\":%" PRIu64 ",\"peak_t\":",
            r->peak_anon + r->peak_file, r->peak_anon, r->peak_file);
    if (tl->has_time)
        fprintf(out, "%.3f", (double)peak_since_start(f, tl) / 1e6);
    else
        fputs("null", out);
    size_t n = tl_nbuckets(tl);
    fputs(",\"anon\":[", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu64, i ? "," : "", tl->buckets[i].rss_anon);
    fputs("],\"file\":[", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu64, i ? "," : "", tl->buckets[i].rss_file);
    fputs("]}", out);
}
