/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diag.c - messages on standard error (see diag.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

const char *progname = "mtrace-check";
void (*message_begin)(void), (*message_end)(void);

/* One message; holding stderr's stream lock keeps a message from another
 * thread from landing in the middle of it. */
static void vsay(const char *file, uint64_t line, const char *fmt, va_list ap)
{
    fflush(stdout);
    if (message_begin)
        message_begin();
    flockfile(stderr);
    fprintf(stderr, "%s: ", progname);
    if (file && line)
        fprintf(stderr, "%s:%" PRIu64 ": ", file, line);
    else if (file)
        fprintf(stderr, "%s: ", file);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    if (message_end)
        message_end();
}

void diag(const char *file, uint64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(file, line, fmt, ap);
    va_end(ap);
}

void diag_fatal(const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(file, 0, fmt, ap);
    va_end(ap);
    exit(2);
}

void diag_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(NULL, 0, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", progname);
}
