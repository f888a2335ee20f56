/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suppress.h - leak suppressions in LeakSanitizer's syntax, for the
 * in-process reports: "leak:PATTERN" lines from the file named by
 * MEMLEAK_CONFIG=suppressions=FILE and from the program's own
 * __lsan_default_suppressions(), when it defines one.  A pattern matches
 * a frame's function name, or its module's path, as LeakSanitizer's do
 * ('*' any text, '^' and '$' anchor; otherwise anywhere in the name); a
 * stack is suppressed when one of its frames matches.  mtrace-check
 * applies the same patterns (the log carries them) with source files too.
 * GPL-3.0-or-later. */
#ifndef MT_SUPPRESS_H
#define MT_SUPPRESS_H
#include <stddef.h>

#define SUPPRESS_PATTERN_MAX 512
#define SUPPRESS_MAX 256

struct stack;

/* Reads the patterns; once, when collection starts (guard set, no lock
 * held: it may call the loader).  A file that cannot be read gets a line
 * on stderr. */
void suppress_load(const char *file);
size_t suppress_count(void);
const char *suppress_pattern(size_t i);
void suppress_each(void (*fn)(const char *pattern, void *arg), void *arg);
/* The first pattern matching a frame of S, or -1. */
int suppress_match(const struct stack *s);

/* Adds the "leak:" entries of TEXT (lines; other kinds and comments are
 * skipped).  Returns the number added. */
size_t suppress_parse(const char *text, size_t len);
/* LeakSanitizer's pattern match (exported for the unit tests). */
int suppress_pattern_matches(const char *pattern, const char *text);

#endif
