/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suppress.c - see suppress.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "suppress.h"
#include "mtrace-suppress.h"
#include "util.h"

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

int supp_load(struct suppressions *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        char *p = line, *end = line + n;
        while (p < end && is_blank(*p))
            p++;
        while (end > p && is_blank(end[-1]))
            end--;
        *end = '\0';
        if (end - p > 5 && strncmp(p, "leak:", 5) == 0)
            supp_add(s, p + 5);
    }
    int err = ferror(f) ? EIO : 0;
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
