/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cifields.h - what the three CI writers (sarif.c, junit.c,
 * codequality.c) say alike about a loss record: its one-line message,
 * the frame it is shown at, a file URI.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_CIFIELDS_H
#define MTC_CIFIELDS_H

#include "output/cireport.h"

#include <stdio.h>

/* "40 bytes in 1 blocks are definitely lost, allocated in leak_a
 * (ci_leaks.c:20) [log trace.log]" (the log named only with several). */
void ci_message(FILE *out, const struct ci_report *rep, const struct ci_log *l,
                const struct ci_record *r);
/* The same as a JSON string (it holds names from the log: escaped). */
void ci_message_json(FILE *out, const struct ci_report *rep,
                     const struct ci_log *l, const struct ci_record *r);
/* PATH percent-encoded as a URI reference (RFC 3986): safe inside JSON
 * and XML strings as it is. */
void ci_uri(FILE *out, const char *path);
/* R's kind: its class's id ("definitely-lost") and words ("definitely
 * lost"), or for a log without verdicts "not-freed" and "not freed (no
 * reachability verdict)" (noverdict.h). */
const char *ci_kind_id(const struct ci_record *r);
const char *ci_kind_words(const struct ci_record *r);
/* The source file a record is shown at (relative to the working
 * directory when below it), or NULL; *LINE gets its line (0: none). */
const char *ci_source(const struct ci_record *r, unsigned *line);

#endif
