/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livetotals.h - "#C totals allocs=N alloc-bytes=N frees=N freed-bytes=N
 * peak-bytes=N", the record a live log (MEMLEAK_CONFIG=log=live,
 * doc/format.md "Live logs") writes at each report point.  Such a log
 * holds the "+" lines of the blocks live at its report points only, so
 * the counts the replay sums from its lines are the survivors'; the
 * timeline (the HTML summary's allocations, frees and peak) takes the
 * library's own counts from this record instead.  GPL-3.0-or-later. */
#ifndef MTC_LIVETOTALS_H
#define MTC_LIVETOTALS_H
#include "base/util.h"
#include <stddef.h>

struct timeline;

/* Whether fields F[0..NF) are a "#C totals" record. */
int livetotals_is_record(const struct slice *f, size_t nf);
/* Puts the counts of record LINE[0..LEN) into TL (may be NULL); returns
 * -1 when it is malformed. */
int livetotals_apply(struct timeline *tl, const char *line, size_t len);
/* Says on stderr that LOG, a live log, holds no history: the outputs
 * that sum allocations by stack (--html, --pprof, --folded: those that
 * need the timeline) count the blocks it holds. */
void livetotals_note(const char *log);

#endif
