/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_hash.h - the hash of the fingerprints (fingerprint.h) of a log's
 * loss records, and which frames each counts (fp_counted.h).
 *
 * A stack's hash is 64-bit FNV-1a, started from 0xcbf29ce484222325, over
 * its counted frames, innermost first: for each, the bytes of its
 * function name ("??" when unknown), then 0xff, then the bytes of its
 * source file's base name ("" when unknown), then 0xff.  The function is
 * fixed: the fingerprints are kept in files.
 *
 * A compiler's live log has 28k records of ~30 frames: reading their
 * views (50 MB) and hashing 20 MB of names took 70 ms.  The records are
 * independent, so a large log's are done in two halves at once, one in a
 * thread of its own; the answers are the same whoever computes them.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_FP_HASH_H
#define MTC_FP_HASH_H

#include "findings/fp_counted.h"

/* C's flags (room made by fp_counted_init) and OUT[I], the hash of
 * ITEMS[I] (the start value for an item without a counted frame). */
void fp_hash_items(const struct fp_item *items, struct fp_counted *c,
                   size_t n, uint64_t *out);

#endif
