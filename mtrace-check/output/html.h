/* SPDX-License-Identifier: GPL-3.0-or-later */
/* html.h - the self-contained HTML report (mtrace-check --html FILE):
 * one file holding the page (mtrace-check/output/html/page.{html,css,js}, built
 * in by assets.S) and the analysis as one JSON block: the summary, every
 * stack with its frames (function, file:line, module), what each stack
 * leaked, held at the peak and allocated in all, live bytes over time,
 * and the temporal intervals of timeline.h; for a log reported by class
 * (findings.h), the class totals and the loss records, so the
 * page calls leaks what the text report does.  doc/html.md describes the
 * views.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_HTML_H
#define MTC_HTML_H

#include "findings/findings.h"

#include <stdio.h>

/* Writes the page for the findings F, which hold a finished timeline
 * (f->tl), to PATH.  Returns 0, or -1 with a message printed. */
int html_write(const char *path, const struct findings *f);

/* Writes more members into the page's data: STACK_OF[stack index + 1]
 * is the page's index of that stack, or -1, for N entries. */
typedef void html_more_fn(FILE *o, const struct findings *f,
                          const long *stack_of, size_t n, void *ctx);
/* html_write with MORE (may be NULL) called at the end of the data. */
int html_write_more(const char *path, const struct findings *f,
                    html_more_fn *more, void *ctx);
/* The data's "blocks" member (htmlmore.c): what definitely lost blocks
 * hold, per page stack; nothing when the log has no "#b" record. */
void html_more_blocks(FILE *o, const struct findings *f, const long *stack_of,
                      size_t n);

#endif
