/* SPDX-License-Identifier: GPL-3.0-or-later */
/* preview.h - what a leaked block holds: after a scan's verdicts, one
 * "#b" record per allocation stack with definitely lost blocks, giving
 * the first bytes of one of them (at most MTF_PREVIEW_BYTES) and, when its
 * first word points into a loaded module, that word as module and offset
 * (a C++ object's vtable pointer: the checker names the class from the
 * vtable's symbol).  doc/format.md, "Block previews".
 *
 * Runs with the world stopped and the log's lock held (scan.c): no
 * malloc, no stdio, no loader; a fixed table of the stacks seen and at
 * most PREVIEW_MAX records a scan.  GPL-3.0-or-later. */
#ifndef MT_PREVIEW_H
#define MT_PREVIEW_H
#include "scan/mark.h"

#define PREVIEW_MAX 1024 /* "#b" records in one scan */

/* The records for the definitely lost blocks of BS (classified). */
void preview_put(struct blockset *bs);

#endif
