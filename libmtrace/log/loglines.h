/* SPDX-License-Identifier: GPL-3.0-or-later */
/* loglines.h - the trace log's header and event lines (loglines.c). */
#ifndef MT_LOGLINES_H
#define MT_LOGLINES_H
#include "base/writer.h"
#include "log/threadlog.h"
#include <stddef.h>
#include <sys/types.h>

/* Room for an event line with a usual WHERE; longer ones are written in
 * pieces (tracelog.c's emit_long_event). */
#define EVENT_LINE_MAX THREADLOG_LINE_MAX
#define EVENT_FIELDS_MAX 96 /* op, pointer, size, stack id, 16-byte slack */

struct stack;
struct frame;

/* Writes a log's header to W: the start line, the version record (UNWINDER
 * the unwinder's name; FORKED_FROM the parent's pid in a fork child's
 * log, else 0), the program, and the time it began. */
void loglines_header(struct writer *w, const char *unwinder, pid_t forked_from);
/* Formats "@ WHERE OP PTR[ SIZE][ sID]\n" into LINE (EVENT_LINE_MAX bytes)
 * and returns its length, or 0 when WHERE is too long for it. */
size_t loglines_event(char *line, char op, const void *ptr, size_t size,
                      int with_size, const struct stack *s,
                      const struct frame *where);

#endif
