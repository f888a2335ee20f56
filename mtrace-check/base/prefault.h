/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefault.h - memory about to be written whole, faulted in by one call.
 *
 * A fresh large allocation is mapped a page at a time, each page on the
 * first write to it: on the virtual machines the checker runs on, a fault
 * costs 3 to 5 microseconds, and a compiler's live log has the checker
 * write some 50 MB of stack views.  One madvise(MADV_POPULATE_WRITE)
 * (Linux 5.14) maps them in one pass, about a quarter cheaper (64 MB: 33
 * ms against 43-50 ms here); without it
 * the pages fault as before.  Not on huge pages: with THP in "madvise"
 * mode a fault there may stall in direct compaction on a fragmented
 * machine (bench/RESULTS.md, "Tried and dropped").
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_PREFAULT_H
#define MTC_PREFAULT_H

#include <stddef.h>

/* Map the whole pages of [P, P + N) for writing (best effort: nothing
 * for less than PREFAULT_MIN bytes, where a call costs more than the
 * faults it saves). */
void prefault_write(void *p, size_t n);

enum { PREFAULT_MIN = 256 << 10 };

#endif
