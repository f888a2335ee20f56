/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mtrace-suppress.h - the match of a leak suppression pattern, in
 * LeakSanitizer's syntax, shared by libmtrace.so (in-process reports) and
 * mtrace-check: '*' stands for any text, a leading '^' anchors the
 * pattern at the start of the name and a trailing '$' at its end;
 * otherwise the pattern may match anywhere in the name.  A "leak:PATTERN"
 * suppression hides a leak when it matches the function, the source file
 * or the module of any frame of the leak's allocation stack.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTRACE_SUPPRESS_H
#define MTRACE_SUPPRESS_H

#include <string.h>

/* The first occurrence of NEEDLE's first N bytes in HAY, or NULL. */
static inline const char *mts_find(const char *hay, const char *needle,
                                   size_t n)
{
    if (n == 0)
        return hay;
    for (const char *p = strchr(hay, needle[0]); p;
         p = strchr(p + 1, needle[0]))
        if (strncmp(p, needle, n) == 0)
            return p;
    return NULL;
}

/* Whether PATTERN matches TEXT (NULL and "" never match). */
static inline int mts_pattern_matches(const char *pattern, const char *text)
{
    if (text == NULL || *text == '\0')
        return 0;
    int anchored = *pattern == '^';
    pattern += anchored;
    const char *s = text;
    while (*pattern) {
        size_t n = strcspn(pattern, "*$");
        if (pattern[n] == '$') {
            size_t tl = strlen(s);
            return tl >= n && strncmp(s + tl - n, pattern, n) == 0 &&
                   (!anchored || tl == n);
        }
        const char *at = mts_find(s, pattern, n);
        if (at == NULL || (anchored && at != s))
            return 0;
        s = at + n;
        pattern += n;
        anchored = 0;
        while (*pattern == '*')
            pattern++;
    }
    return 1;
}

#endif /* MTRACE_SUPPRESS_H */
