/* pipeline.h - reading the log on one thread while the engine replays it
 * on another.  The reader thread only moves bytes from the file into a
 * small ring of large buffers, cut after their last newline; the engine
 * thread splits and replays the lines in place.  Reading costs about a
 * fifth of the whole, which a second core absorbs; with no spare core the
 * cost is one handoff per megabyte.  The engine sees every line, in order.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_PIPELINE_H
#define MTC_PIPELINE_H

#include "engine.h"
#include "linereader.h"

/* Feed every line of LR to E.  Returns 0, or -1 after a read error (errno
 * value in lr->read_errno). */
int pipeline_run(struct line_reader *lr, struct engine *e);

/* The same on the calling thread alone. */
int replay_serial(struct line_reader *lr, struct engine *e);

#endif
