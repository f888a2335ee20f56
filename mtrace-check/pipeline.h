/* pipeline.h - reading the log on one thread while the engine replays it
 * on another.  The reader thread moves bytes from the file into a small
 * ring of large buffers, cut after their last newline, and splits every
 * line (lineindex.h); the engine thread only replays.  The two halves cost
 * about the same, so with a spare core the replay takes about half the
 * time; without one, the cost is a handoff per megabyte.  The engine sees
 * every line, in order, as from replay_serial.
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

/* Does the machine look like it has a core to spare (more than one CPU,
 * load average at least one and a half below their number)?  On a busy
 * machine the two threads wait for each other's time slices and the
 * pipeline is slower than the plain loop. */
int spare_cpu(void);

#endif
