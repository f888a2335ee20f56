/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracelog.h - the trace log: the file MALLOC_TRACE names, its shared
 * buffer and lock, the records that describe stacks (#m #u #f #s), event
 * lines, comments and the end record, and the log's life across start,
 * stop, fork, exec and exit.  The grammar is doc/format.md.
 *
 * Event lines go through the calling thread's buffer (threadlog.h), which
 * is handed to this log when full; records go to the log directly, before
 * the first line that refers to them enters any buffer.  One lock, the
 * log lock, guards the shared buffer and the file.  Nothing here calls
 * into the loader: under the log lock we only format and write.
 * Dependencies go one way: tracer -> tracelog -> threadlog -> writer.
 * GPL-3.0-or-later. */
#ifndef MT_TRACELOG_H
#define MT_TRACELOG_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stack;
struct frame;

/* Opens the log MALLOC_TRACE names (no log when it is unset) and makes it
 * the destination of every thread's buffer.  Once, at the start.  UNWINDER
 * names the unwinder in use (asked each time a header is written: a fork
 * child may change it); ON_WRITE_FAILURE is called, log lock held, when
 * a write fails and the log closes: the tracer stops collecting. */
void tracelog_start(const char *(*unwinder)(void),
                    void (*on_write_failure)(void));
/* A log is open (or, in a fork child, will be on its first line).  One
 * load: the hot path asks it before formatting anything. */
int tracelog_logging(void);
/* The log's path when a file is open, else NULL. */
const char *tracelog_path(void);

/* The tag the calling thread's next line will carry (threadlog.h), or 0
 * when no log is written. */
uint32_t tracelog_line_tag(void);
/* "[@ WHERE ]OP PTR[ SIZE][ sID]" into the calling thread's buffer, after
 * the stack record it refers to.  TAG: what tracelog_line_tag() said
 * before the event entered the live table. */
void tracelog_event(char op, const void *ptr, size_t size, int with_size,
                    struct stack *s, const struct frame *where, uint32_t tag);
/* A record line LINE[0..N) (N <= THREADLOG_LINE_MAX, newline included)
 * through the calling thread's buffer as an event line goes, after the
 * stack record S refers to (S may be NULL); nothing in a classic log.
 * TAG as for tracelog_event (xtrack.h's "#b", "#x" and "#P"). */
void tracelog_record_line(const char *line, size_t n, struct stack *s,
                          uint32_t tag);
/* LINE (N bytes, a whole record that names stack S) into the shared log
 * now, after S's stack record; nothing in a classic log. */
void tracelog_record(struct stack *s, const char *line, size_t n);
/* "#u" records for the modules dlclose() took away. */
void tracelog_unloaded(void);
/* A "# A B C" comment line. */
void tracelog_note(const char *a, const char *b, const char *c);

/* Everything buffered (every thread's lines and the shared buffer) goes
 * to the file.  The caller entered the recursion guard. */
void tracelog_write_out(void);
/* Writes everything out and ends the log with "#e REASON" (doc/format.md),
 * then "= End" when END_MARK (muntrace) and closes it when CLOSE.  A fork
 * child that never wrote a line writes nothing: no file. */
void tracelog_end(const char *reason, int end_mark, int close);
/* The exec that followed tracelog_end(MTF_END_EXEC, ...) failed: the
 * image logs on. */
void tracelog_exec_failed(void);
/* The exec this thread began (tracelog_end(MTF_END_EXEC, ...)) failed:
 * the other threads may write again.  Called even when tracing stopped
 * meanwhile; does nothing for a thread that began none. */
void tracelog_exec_over(void);
/* At exit: "#e exit", and every later line goes out as it comes. */
void tracelog_exit(void);
/* A fatal signal SIG that interrupted this thread: ends the log with
 * "#e signal sig=N" as far as it can without waiting for a lock (the
 * thread may hold one); INSIDE says it was inside the tracer. */
void tracelog_end_by_signal(int sig, int inside);

/* The reachability scan's records (scan.c, doc/format.md): they must
 * follow every line written before the world stopped and precede every
 * line written after.  tracelog_scan_lock takes every thread buffer's
 * lock, then the log's; with the world stopped, tracelog_scan_flush moves
 * every buffered line into the log (opening a fork child's log if it
 * has lines), and tracelog_scan_put appends a record line after them (a
 * no-op without an open extended log).  tracelog_scan_unlock lets go. */
void tracelog_scan_lock(void);
void tracelog_scan_flush(void);
int tracelog_scan_records(void);
void tracelog_scan_put(const char *line, size_t n);
/* Module MID's "#m" record, unless this log has it (a scan record that
 * names an address in it: scan/preview.h). */
void tracelog_scan_module(int mid);
void tracelog_scan_unlock(void);

/* For livelog.c, which writes lines straight into the shared log: the log
 * lock (tracelog_direct_unlock stops tracing when a write failed), and
 * with it held (by these or tracelog_scan_lock) the log's writer after
 * S's stack record (S may be NULL), or NULL when no extended log is open
 * (a fork child's pending log opens here). */
struct writer;
void tracelog_direct_lock(void);
void tracelog_direct_unlock(void);
struct writer *tracelog_locked_writer(struct stack *s);
/* An event line into W, as tracelog_event formats it (WHERE apart when
 * the line is too long for one piece). */
void tracelog_write_event(struct writer *w, char op, const void *ptr,
                          size_t size, int with_size, const struct stack *s,
                          const struct frame *where);

/* fork(): prepare takes the log lock and writes the parent's buffer out
 * (the parent may leave by libc's internal _exit: daemon()); parent
 * releases it; the child forgets the parent's log and opens one of its
 * own on its first line. */
void tracelog_fork_prepare(void);
void tracelog_fork_parent(void);
void tracelog_fork_child(void);
/* The compressed log's queue lock, innermost of all (debug.h): prepare
 * takes it after every table lock, the parent lets go of it first.  The
 * child resets it in tracelog_fork_child. */
void tracelog_fork_lock_queue(void);
void tracelog_fork_unlock_queue(void);

#endif
