/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.h - a loss record's stable identity, for baselines, CI
 * reports (SARIF partialFingerprints, GitLab's fingerprint, JUnit test
 * names) and generated suppressions.
 *
 * A fingerprint is 16 hex digits: a hash of the function names and source
 * file names (base names: the checkout's directory differs from machine
 * to machine) of the allocation stack's frames in the program's own code,
 * innermost first.  Never module names (a program renamed is the same
 * program), never addresses or offsets (they
 * move with ASLR and every rebuild), never line numbers (they move with
 * unrelated edits above), never the class (a leak that turns from
 * definitely into indirectly lost is the same leak).  Frames of the C
 * runtime (libc, the loader, libstdc++, libgcc_s, libm, libmtrace) are
 * left out: the allocator's own frames and the start-up code below main
 * change with the distribution, not with the program.  A stack with no
 * frame of its own is hashed from all its named frames.
 *
 * Two different stacks of one log with the same hash (the same functions,
 * other lines: two calls to one helper in one function) are told apart by
 * a suffix ".2", ".3" in the order of their source lines, then of their
 * offsets (the order of the calls in the function), which edits
 * elsewhere do not change.  doc/ci.md documents all this.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_FINGERPRINT_H
#define MTC_FINGERPRINT_H

#include "symbolize/stackview.h"

#include <stdint.h>

#define FP_LEN 32 /* 16 hex digits, ".N", NUL */

/* Whether frame F belongs to the C runtime, not to the program. */
int fp_frame_is_runtime(const struct view_frame *f);

/* The frame a leak is shown at: the innermost frame of the program's own
 * code with a source line (not one of memleak.h's inline wrappers: a pool
 * block is shown where the pool's code called memleak_pool_alloc), else
 * its innermost own frame, else the innermost frame; NULL for a stack
 * without frames. */
const struct view_frame *fp_own_frame(const struct view_frames *f);

/* One loss record to fingerprint: its frames (NULL: no stack recorded)
 * and its stack's index (records of one stack share the fingerprint). */
struct fp_item {
    const struct view_frames *frames;
    int32_t stack;
    char fp[FP_LEN]; /* set by fingerprint_assign */
};

/* Fingerprints for ITEMS[0..N), the loss records of one log. */
void fingerprint_assign(struct fp_item *items, size_t n);

struct loss_record;
/* The same for the model's loss records (findings.h): each record's
 * fingerprint member set. */
void fingerprint_records(struct loss_record *r, size_t n);

#endif
