/* SPDX-License-Identifier: GPL-3.0-or-later */
/* operands.h - which command-line operand is the traced program.
 *
 * With one operand it is a LOG.  With more, the first is BINARY, as with
 * glibc's mtrace(1) ("mtrace-check prog trace.log"), unless it reads as a
 * log: "-" (standard input), or a regular file whose first line, after
 * decompression, is "= Start" (every MALLOC_TRACE log starts so) or
 * "# libmtrace report".  So "mtrace-check trace.log*" checks every log,
 * and "mtrace-check prog trace.log*" every log with prog's symbols.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_OPERANDS_H
#define MTC_OPERANDS_H

/* 1 if OPERANDS[0] is BINARY, else 0 (N: their number). */
int first_is_binary(char *const *operands, int n);

/* Does the file at PATH start like a log or a report? */
int looks_like_log(const char *path);

#endif
