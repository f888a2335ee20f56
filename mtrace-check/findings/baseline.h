/* SPDX-License-Identifier: GPL-3.0-or-later */
/* baseline.h - the leaks a project already has (--baseline FILE): loss
 * records whose fingerprint (fingerprint.h) is in FILE are marked and do
 * not count toward the exit status, new ones do.  The file is text, one
 * fingerprint per line, '#' starting a comment (doc/ci.md); what
 * --write-baseline writes.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_BASELINE_H
#define MTC_BASELINE_H

#include <stddef.h>

struct baseline {
    const char *path;
    char **fp; /* sorted */
    size_t n;
};

/* Reads PATH; returns 0, or -1 after saying why (PATH:LINE for a line
 * that is not a fingerprint). */
int baseline_load(struct baseline *b, const char *path);
void baseline_destroy(struct baseline *b);
/* Whether fingerprint FP is in B (B may be NULL: no). */
int baseline_has(const struct baseline *b, const char *fp);
/* Whether S is a fingerprint as fingerprint_assign writes them. */
int baseline_is_fingerprint(const char *s, size_t n);

#endif
