/* SPDX-License-Identifier: GPL-3.0-or-later */
/* baseline.c - see baseline.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/baseline.h"
#include "base/diag.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int baseline_is_fingerprint(const char *s, size_t n)
{
    if (n < 16)
        return 0;
    for (size_t i = 0; i < 16; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return 0;
    if (n == 16)
        return 1;
    if (s[16] != '.' || n == 17 || n > 26 || s[17] == '0')
        return 0;
    for (size_t i = 17; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line: blank or comment, or a fingerprint and then a comment.
 * Returns 0, or -1 for a malformed line (told). */
static int load_line(struct baseline *b, char *p, unsigned long nr)
{
    p += strspn(p, " \t");
    size_t n = strcspn(p, " \t\r\n#");
    char *rest = p + n + strspn(p + n, " \t\r\n");
    if (n == 0 && (*rest == '\0' || *rest == '#'))
        return 0;
    if (!baseline_is_fingerprint(p, n) || (*rest != '\0' && *rest != '#')) {
        diag(b->path, nr,
             "not a fingerprint (16 lowercase hex digits, maybe .N), "
             "optionally followed by a # comment");
        return -1;
    }
    b->fp = xrealloc(b->fp, (b->n + 1) * sizeof *b->fp);
    b->fp[b->n++] = xmemdup0(p, n);
    return 0;
}

int baseline_load(struct baseline *b, const char *path)
{
    memset(b, 0, sizeof *b);
    b->path = path;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        diag(path, 0, "cannot read baseline: %s", strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned long nr = 0;
    int bad = 0;
    while (getline(&line, &cap, f) >= 0)
        bad |= load_line(b, line, ++nr);
    if (ferror(f)) {
        diag(path, 0, "cannot read baseline: %s", strerror(errno));
        bad = -1;
    }
    free(line);
    fclose(f);
    if (bad) {
        baseline_destroy(b);
        return -1;
    }
    qsort(b->fp, b->n, sizeof *b->fp, by_string);
    return 0;
}

void baseline_destroy(struct baseline *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->fp[i]);
    free(b->fp);
    b->fp = NULL;
    b->n = 0;
}

int baseline_has(const struct baseline *b, const char *fp)
{
    if (b == NULL || b->n == 0)
        return 0;
    return bsearch(&fp, b->fp, b->n, sizeof *b->fp, by_string) != NULL;
}
