/* SPDX-License-Identifier: GPL-3.0-or-later */
/* folded.h - stacks in the folded format of flamegraph.pl, inferno and
 * speedscope: one line per distinct stack, frames root first, separated
 * by ';', then a space and the weight in bytes:
 *     main;parse;xmalloc 4096
 * Frames are labelled as flame graphs show them (folded_label); the same
 * labels name the boxes of the HTML report.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_FOLDED_H
#define MTC_FOLDED_H

#include "read/records.h"
#include "symbolize/stackview.h"
#include "replay/timeline.h"
#include "options/options.h"

#include <stdio.h>

uint64_t folded_weight(const struct tl_stack *s, enum folded_view v);

/* A frame's label into BUF (SIZE bytes): its function, else the module's
 * file name and offset ("libfoo.so+0x1234"), else its address; " [inlined]"
 * after an inlined call.  Bytes that would break the format (';', control
 * characters) become '_'.  Returns BUF. */
const char *folded_label(const struct view_frame *f, char *buf, size_t size);

/* The label of the blocks whose allocation has no stack in the log. */
#define FOLDED_NO_STACK "[no stack recorded]"

/* Print the folded lines of TL's stacks (indexes into X's stacks) for
 * view V, sorted, equal lines merged, zero weights left out.  Returns 0,
 * or -1 on a write error. */
int folded_write(FILE *out, struct ext_store *x, const struct timeline *tl,
                 enum folded_view v);
/* The same with each stack's weight from WEIGHTS, by timeline stack index
 * (a log with verdicts: the leaks view weighs the lost bytes only,
 * classview_lost_bytes()). */
int folded_write_weights(FILE *out, struct ext_store *x,
                         const struct timeline *tl, const uint64_t *weights);

#endif
