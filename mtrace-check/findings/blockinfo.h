/* SPDX-License-Identifier: GPL-3.0-or-later */
/* blockinfo.h - what a definitely lost loss record's blocks are: the
 * preview the scan took of one of them ("#b", replay/preview.h) and, when
 * its first word points into a vtable, the object's C++ class
 * (symbolize/vtable.h).  The writers show them (text, JSON "preview" and
 * "type", HTML).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_BLOCKINFO_H
#define MTC_BLOCKINFO_H

#include "findings/findings.h"

/* Sets preview and type of the definitely lost records REC[REC_OF[I]]
 * from BLOCKS[0..N) (the first block of a record with a preview). */
void blockinfo_attach(struct engine *e, struct loss_record *rec,
                      struct block **blocks, size_t n, const size_t *rec_of);

/* The printable text of preview P: bytes 0x20-0x7e as they are, others
 * as '.'; OUT holds MTF_PREVIEW_BYTES + 1. */
void blockinfo_text(const struct block_preview *p, char *out);

#endif
