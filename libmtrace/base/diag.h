/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diag.h - the library's one way to speak on stderr: a single line
 * "libmtrace: ..." made of the given parts, written with one write(2) so
 * lines from several threads never interleave.  No stdio, no malloc: it
 * may run inside the tracer. */
#ifndef MT_DIAG_H
#define MT_DIAG_H

/* Writes "libmtrace: " and every part up to the terminating NULL, then a
 * newline.  A line longer than DIAG_LINE_MAX bytes is cut. */
void diag(const char *part, ...) __attribute__((sentinel));
#define DIAG_LINE_MAX 1024

#endif
