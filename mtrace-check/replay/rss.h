/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rss.h - the process's resident memory as the log's "#t" records carry
 * it ("#t NS rss-anon=BYTES rss-file=BYTES", doc/format.md "Time"): the
 * engine keeps the peak for the reports (findings.h), the timeline the
 * samples over time for the HTML chart (timeline.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RSS_H
#define MTC_RSS_H

#include "base/util.h"

struct rss_stats {
    uint64_t samples;               /* "#t" records with both keys */
    uint64_t peak_anon, peak_file;  /* the sample of the largest sum */
    uint64_t peak_ns;               /* its "#t" time, absolute */
};

/* The two keys of a "#t" record's fields F (NF of them); 0 when it has
 * both, else -1 (then *ANON and *FILE are unchanged). */
int rss_parse(const struct slice *f, size_t nf, uint64_t *anon, uint64_t *file);
/* A "#t" record: its sample, if any, counts. */
void rss_record(struct rss_stats *r, const struct slice *f, size_t nf);

#endif
