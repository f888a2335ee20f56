/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_counted.h - which frames of each stack a fingerprint hashes and
 * orders by (fingerprint.h): the program's own frames, or every frame of
 * a stack that has none of its own.  Worked out once per frame for a
 * whole log, with the C runtime test (fp_frame_is_runtime) made once per
 * module rather than for every frame each time the sort compares two
 * stacks: on a compiler's live log (28k loss records of ~30 frames) that
 * test was half of the checker's time.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_FP_COUNTED_H
#define MTC_FP_COUNTED_H

#include "findings/fingerprint.h"

struct fp_counted {
    uint8_t *flags; /* every item's frames, one after the other: 1 counts */
    size_t *start;  /* item I's first flag */
};

/* Room for the flags of ITEMS[0..N) (items without frames have none). */
void fp_counted_init(struct fp_counted *c, const struct fp_item *items,
                     size_t n);
/* The flags of ITEMS[FROM..TO): ranges apart may be filled at the same
 * time by threads of their own. */
void fp_counted_fill(struct fp_counted *c, const struct fp_item *items,
                     size_t from, size_t to);
/* Item I's flags, one per frame of its view. */
const uint8_t *fp_counted_of(const struct fp_counted *c, size_t i);
void fp_counted_destroy(struct fp_counted *c);

#endif
