/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diag.c - see diag.h. */
#include "base/diag.h"
#include "base/writer.h"
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static size_t append(char *line, size_t len, const char *s)
{
    size_t n = strlen(s);
    if (n > DIAG_LINE_MAX - 1 - len)
        n = DIAG_LINE_MAX - 1 - len;
    memcpy(line + len, s, n);
    return len + n;
}

void diag(const char *part, ...)
{
    char line[DIAG_LINE_MAX];
    size_t len = append(line, 0, "libmtrace: ");
    va_list ap;
    va_start(ap, part);
    for (const char *s = part; s; s = va_arg(ap, const char *))
        len = append(line, len, s);
    va_end(ap);
    line[len++] = '\n';
    write_all(STDERR_FILENO, line, len);
}
