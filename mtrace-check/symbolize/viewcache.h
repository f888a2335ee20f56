/* SPDX-License-Identifier: GPL-3.0-or-later */
/* viewcache.h - the readable frames (stackview.h) of a log's stacks, each
 * stack viewed once however many parts of the report show it, and each
 * distinct recorded frame (module, offset) viewed once however many
 * stacks hold it.
 *
 * A compiler's live log holds 28k stacks of ~30 frames, 824k frames in
 * all but only 7.5k distinct ones: viewing each stack frame by frame
 * (the symbolizer's lock and cache, the "#f" names, a push per frame)
 * took a third of the checker's time, and the leak groups and the loss
 * records each viewed every stack again.  A view here is the copy of its
 * frames' views, made once; every pointer stays valid until
 * viewcache_free().
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VIEWCACHE_H
#define MTC_VIEWCACHE_H

#include "symbolize/stackview.h"

struct view_cache;

/* A cache of the views of X's stacks; X must outlive it and gain no
 * stacks meanwhile. */
struct view_cache *viewcache_new(struct ext_store *x);
/* The view of stack ST (an index into X's stacks), what view_stack gives
 * for it; NULL when ST names no stack. */
const struct view_frames *viewcache_stack(struct view_cache *c, int32_t st);
void viewcache_free(struct view_cache *c);

#endif
