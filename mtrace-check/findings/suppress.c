/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suppress.c - see suppress.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/suppress.h"
#include "mtrace-suppress.h"
#include "base/util.h"
#include "base/diag.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void supp_init(struct suppressions *s)
{
    memset(s, 0, sizeof *s);
}

void supp_destroy(struct suppressions *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->s[i].pattern);
    free(s->s);
    memset(s, 0, sizeof *s);
}

void supp_add(struct suppressions *s, const char *pattern)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->s[i].pattern, pattern) == 0)
            return;
    s->s = xrealloc(s->s, (s->n + 1) * sizeof *s->s);
    memset(&s->s[s->n], 0, sizeof s->s[0]);
    s->s[s->n++].pattern = xstrdup(pattern);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The kinds other sanitizers' suppression files have (sanitizer_common's
 * suppression parser: AddressSanitizer, ThreadSanitizer, UBSan's check
 * names): a file shared with them is accepted, and each of their lines
 * is said to be ignored.  Any other kind is a mistake ("lek:"), as it is
 * for LeakSanitizer, which refuses the file then. */
static const char *other_sanitizer(const char *kind, size_t n)
{
    static const struct {
        const char *kind, *tool;
    } kinds[] = {
        { "interceptor_name", "AddressSanitizer" },
        { "interceptor_via_fun", "AddressSanitizer" },
        { "interceptor_via_lib", "AddressSanitizer" },
        { "odr_violation", "AddressSanitizer" },
        { "race", "ThreadSanitizer" },
        { "race_top", "ThreadSanitizer" },
        { "mutex", "ThreadSanitizer" },
        { "thread", "ThreadSanitizer" },
        { "signal", "ThreadSanitizer" },
        { "deadlock", "ThreadSanitizer" },
        { "called_from_lib", "ThreadSanitizer" },
        { "alignment", "UndefinedBehaviorSanitizer" },
        { "bool", "UndefinedBehaviorSanitizer" },
        { "bounds", "UndefinedBehaviorSanitizer" },
        { "builtin", "UndefinedBehaviorSanitizer" },
        { "enum", "UndefinedBehaviorSanitizer" },
        { "float-cast-overflow", "UndefinedBehaviorSanitizer" },
        { "float-divide-by-zero", "UndefinedBehaviorSanitizer" },
        { "function", "UndefinedBehaviorSanitizer" },
        { "implicit-integer-sign-change", "UndefinedBehaviorSanitizer" },
        { "implicit-signed-integer-truncation", "UndefinedBehaviorSanitizer" },
        { "implicit-unsigned-integer-truncation", "UndefinedBehaviorSanitizer" },
        { "integer-divide-by-zero", "UndefinedBehaviorSanitizer" },
        { "invalid-builtin-use", "UndefinedBehaviorSanitizer" },
        { "nonnull-attribute", "UndefinedBehaviorSanitizer" },
        { "null", "UndefinedBehaviorSanitizer" },
        { "nullability-arg", "UndefinedBehaviorSanitizer" },
        { "nullability-assign", "UndefinedBehaviorSanitizer" },
        { "nullability-return", "UndefinedBehaviorSanitizer" },
        { "object-size", "UndefinedBehaviorSanitizer" },
        { "pointer-overflow", "UndefinedBehaviorSanitizer" },
        { "return", "UndefinedBehaviorSanitizer" },
        { "returns-nonnull-attribute", "UndefinedBehaviorSanitizer" },
        { "shift-base", "UndefinedBehaviorSanitizer" },
        { "shift-exponent", "UndefinedBehaviorSanitizer" },
        { "signed-integer-overflow", "UndefinedBehaviorSanitizer" },
        { "unreachable", "UndefinedBehaviorSanitizer" },
        { "unsigned-integer-overflow", "UndefinedBehaviorSanitizer" },
        { "vla-bound", "UndefinedBehaviorSanitizer" },
        { "vptr", "UndefinedBehaviorSanitizer" },
        { "cfi-icall", "UndefinedBehaviorSanitizer (CFI)" },
        { "cfi-vcall", "UndefinedBehaviorSanitizer (CFI)" },
        { "cfi-nvcall", "UndefinedBehaviorSanitizer (CFI)" },
        { "cfi-derived-cast", "UndefinedBehaviorSanitizer (CFI)" },
        { "cfi-unrelated-cast", "UndefinedBehaviorSanitizer (CFI)" },
        { "cfi-mfcall", "UndefinedBehaviorSanitizer (CFI)" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].kind) == n && strncmp(kinds[i].kind, kind, n) == 0)
            return kinds[i].tool;
    return NULL;
}

/* One line, blanks trimmed: a "leak:" pattern is added; anything else
 * but a comment or a blank line is told (PATH:NR) when COMPLAIN.
 * Returns 1 for a malformed line, else 0. */
static int load_line(struct suppressions *s, const char *p, const char *path,
                     uint64_t nr, int complain)
{
    if (*p == '\0' || *p == '#')
        return 0;
    if (strncmp(p, "leak:", 5) == 0 && p[5] != '\0') {
        supp_add(s, p + 5);
        return 0;
    }
    size_t kind = strcspn(p, ":");
    const char *tool = p[kind] == ':' ? other_sanitizer(p, kind) : NULL;
    if (!complain)
        return tool == NULL;
    if (tool)
        diag(path, nr, "'%.*s:' suppressions are %s's: ignored (only "
             "leak:PATTERN lines apply)", (int)kind, p, tool);
    else if (strcmp(p, "leak:") == 0)
        diag(path, nr, "'leak:' without a pattern");
    else if (p[kind] != ':')
        diag(path, nr, "'%s' is not a suppression: expected leak:PATTERN", p);
    else
        diag(path, nr, "unknown suppression type '%.*s' (expected leak:PATTERN)",
             (int)kind, p);
    return tool == NULL;
}

int supp_load(struct suppressions *s, const char *path, int complain)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t nr = 0;
    int malformed = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        char *p = line, *end = line + n;
        nr++;
        while (p < end && is_blank(*p))
            p++;
        while (end > p && is_blank(end[-1]))
            end--;
        *end = '\0';
        malformed |= load_line(s, p, path, nr, complain);
    }
    int err = ferror(f) ? EIO : malformed ? SUPP_MALFORMED : 0;
    free(line);
    fclose(f);
    return err;
}

int supp_match(const struct suppressions *s, const struct view_frames *f)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; f && k < f->n; k++) {
            const struct view_frame *v = &f->v[k];
            const char *p = s->s[i].pattern;
            if (mts_pattern_matches(p, v->function) ||
                mts_pattern_matches(p, v->file) ||
                mts_pattern_matches(p, v->module))
                return (int)i;
        }
    return -1;
}
