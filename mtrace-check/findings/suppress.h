/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suppress.h - leak suppressions in LeakSanitizer's syntax ("leak:PATTERN"
 * lines; '#' comments and blank lines are skipped, other sanitizers'
 * kinds ignored with a message, anything else refused) from --suppressions files and from the log's "#C suppression"
 * records.  A stack is suppressed when a pattern matches the function,
 * source file or module of one of its frames (include/mtrace-suppress.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_SUPPRESS_H
#define MTC_SUPPRESS_H

#include "symbolize/stackview.h"

#include <stdint.h>

struct suppression {
    char *pattern;
    uint64_t blocks, bytes; /* what it suppressed */
};

struct suppressions {
    struct suppression *s;
    size_t n;
};

void supp_init(struct suppressions *s);
void supp_destroy(struct suppressions *s);
/* Adds PATTERN unless it is there already. */
void supp_add(struct suppressions *s, const char *pattern);
/* Adds the "leak:" entries of file PATH; returns 0, an errno, or
 * SUPP_MALFORMED when a line is neither "leak:PATTERN", a comment, a
 * blank line nor another sanitizer's kind (those are ignored).  With
 * COMPLAIN, each such line and each ignored kind is told as PATH:LINE on
 * standard error. */
enum { SUPP_MALFORMED = -1 };
int supp_load(struct suppressions *s, const char *path, int complain);
/* The first suppression matching a frame of F, or -1. */
int supp_match(const struct suppressions *s, const struct view_frames *f);

#endif
