/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resout.h - the resources of the findings (findings/resfind.h) in the
 * text report and the JSON document: what was never released, by kind and
 * acquiring stack, and the warnings about "#r" records.  Both write
 * nothing for a log without "#r" records, so a report of any other log is
 * byte for byte what it was.  And the resident memory the log sampled.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RESOUT_H
#define MTC_RESOUT_H

#include "findings/findings.h"

#include <stdio.h>

/* The text report's section (restext.c). */
void res_text(FILE *out, const struct findings *f);
/* ",\n\"resources\":{...}", a member of the log's object (resjson.c). */
void res_json(FILE *out, const struct findings *f);

/* The peak of the resident memory the "#t" records sampled (rssout.c):
 * a line of the text report, the JSON member ",\n\"rss\":{...}", and the
 * HTML page's ",\n\"rss\":{...}" with the samples by bucket of TL.  Each
 * writes nothing for a log without samples. */
void rss_text(FILE *out, const struct findings *f);
void rss_json(FILE *out, const struct findings *f);
void rss_html(FILE *out, const struct findings *f, const struct timeline *tl);

#endif
