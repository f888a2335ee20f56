/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keysort.h - the leak table's order: live blocks by the text of their
 * address, byte by byte as Perl's default sort compares strings (a key
 * that is a prefix of another comes first).
 *
 * qsort with a comparator that follows each block pointer and calls
 * memcmp took 40 ms for a compiler's 75k live blocks.  Here the first 16
 * bytes of each key become two big-endian words, sorted by radix, eight
 * bits a pass, skipping the passes where every key has the same byte (the
 * "0x" and the high digits of a heap's addresses); keys alike in their
 * first 16 bytes (longer keys, or keys with NUL bytes) are then put in
 * order by the full comparison.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_KEYSORT_H
#define MTC_KEYSORT_H

#include "replay/table.h"

/* Byte-wise order of the keys of A and B, the shorter first on a tie. */
int keysort_cmp(const struct block *a, const struct block *b);

/* Sort B[0..N) by keysort_cmp. */
void keysort_blocks(struct block **b, size_t n);

#endif
