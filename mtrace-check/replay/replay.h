/* SPDX-License-Identifier: GPL-3.0-or-later */
/* replay.h - every line of a log through the engine, on one thread or on
 * several.  The feeder (feeder.h) cuts the log into segments; with more
 * than one thread, each thread takes the next segment, replays it on its
 * own (speculate.h) and applies the finished segments to the engine in
 * log order, so reading, splitting and replaying all run on every core
 * and the report is the same as from one thread.  Segments in flight are
 * bounded: memory does not grow with the log.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_REPLAY_H
#define MTC_REPLAY_H

#include "replay/engine.h"
#include "read/source.h"

struct replay_stats {
    uint64_t segments; /* segments read */
    uint64_t replayed; /* ... that had to be replayed again, in order */
};

/* Feed every line of SRC to E in segments of about SEGMENT bytes (0: the
 * default) replayed on THREADS threads (1: the calling thread alone), or,
 * with THREADS 0, line by line in order on the engine itself (the plain
 * replay the others must match).  NAME is the log's name for messages.
 * Returns 0, or -1 after a read error (SRC->error says which). */
int replay_log(struct source *src, struct engine *e, const char *name,
               int threads, size_t segment, struct replay_stats *stats);

/* When another thread of the process needs a core of its own for a
 * while (the debug information read for the stack report): the helper
 * threads call WAIT before each segment, and it returns when they may go
 * on; the calling thread never waits, so the replay always advances.
 * NULL (the default): no waiting. */
void replay_share_cores(void (*wait)(void));

/* Threads to use: MTRACE_CHECK_THREADS if set (0: the plain replay), else
 * one per CPU (at most 8). */
int replay_threads(void);

/* MTRACE_CHECK_SEGMENT if set, else 0 (the default size). */
size_t replay_segment_size(void);

#endif
