/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threadlog.h - per-thread buffers of log lines, and the rule that keeps
 * the log causally ordered across them.
 *
 * Each thread appends its event lines to a buffer of its own and hands the
 * buffer to the shared log (the sink) when it fills: threads no longer meet
 * on one lock and one buffer tail for every event.  Within a thread the
 * order is kept by the buffer; across threads it is kept by this rule:
 * when a line is appended, every line of another thread that it depends
 * on is already in the shared log.  Two dependencies exist, and the live
 * table (livetab.h) records who wrote the line each one points at:
 *   - a free (or realloc's "<") depends on the block's allocation line;
 *   - an allocation depends on the free that released the same address
 *     (the live table keeps a freed block's entry until then).
 * A tag names a line's thread and that thread's buffer generation (how
 * many times its buffer was handed over, modulo TAG_GEN_MOD); the line is
 * pending while the generation has not moved on.  A thread that depends
 * on a pending line hands the other thread's buffer over itself.
 * Since every buffer only ever holds lines whose dependencies are already
 * out, buffers may be handed over in any order (exit, fork, reports).
 * Lock order: a buffer's lock, then the sink's.  GPL-3.0-or-later. */
#ifndef MT_THREADLOG_H
#define MT_THREADLOG_H
#include "base/spin.h"
#include <stddef.h>
#include <stdint.h>

/* Lines of up to THREADLOG_LINE_MAX bytes go through the buffer.  From
 * THREADLOG_SOON bytes on, the buffer is handed over when the sink is
 * free; when less than a line's room is left, whatever it takes.  So a
 * thread goes on logging while another one holds the sink for a write(2)
 * instead of sleeping on it (measured on two threads: 7% of the time in
 * futex calls and as much in task switches before).  The room beyond
 * THREADLOG_SOON lasts a thread through one write of the log's 256 KB
 * (tracelog.c): with 16 KB, two threads lost 4-5% of their time waiting
 * (bench/RESULTS.md, 2026-11-26, fourth session).  A thread whose
 * hand-overs find the sink free never touches more than the first
 * THREADLOG_SOON + THREADLOG_LINE_MAX bytes. */
#define THREADLOG_SIZE 65536
#define THREADLOG_SOON 8192
#define THREADLOG_LINE_MAX 1024

/* A tag: 11 bits of thread id (threads.h), 4 of generation.  A generation
 * that went round the modulus only makes a line look pending: that costs
 * a needless hand-over, never a misordered log. */
#define TAG_GEN_BITS 4
#define TAG_GEN_MOD (1u << TAG_GEN_BITS)
#define TAG_BITS 15

struct threadlog {
    spinlock_t lock;
    int taken;       /* the owner's reserve took the lock (spin.h) */
    atomic_uint gen; /* times the buffer was handed over       */
    size_t len;
    char buf[THREADLOG_SIZE];
};

struct thread_record;

/* Where handed-over lines go (the tracer's shared log).  Called with the
 * buffer's lock held; must not call back into threadlog.  With WAIT 0 it
 * may decline (returns 0) rather than wait for a lock; else it returns 1. */
void threadlog_set_sink(int (*sink)(const char *lines, size_t n, int wait));

/* The clock of the "#t" time records (timestamp.h), NULL (the default):
 * none.  With one, a "#t" line follows a hand-over when the last one is
 * MTF_TIME_STEP_NS old, and every threadlog_flush_all(). */
void threadlog_set_clock(uint64_t (*now)(void));

/* The tag the calling thread's next line will carry; 0 (never pending)
 * for a thread without an id, whose lines go straight to the sink. */
uint32_t threadlog_tag(void);
/* True while the line tagged TAG may still be in its thread's buffer. */
int threadlog_pending(uint32_t tag);
/* Makes sure the line tagged TAG is in the shared log. */
void threadlog_settle(uint32_t tag);

/* Appends a line (N <= THREADLOG_LINE_MAX) of the calling thread.  TAG is
 * what threadlog_tag() returned before the event was entered in the live
 * table: if the buffer was handed over since, the table holds a stale tag
 * for this line, so the line goes out at once. */
void threadlog_append(const char *line, size_t n, uint32_t tag);

/* The same in two steps, to format a line in place: room for
 * THREADLOG_LINE_MAX bytes in the calling thread's buffer, which stays
 * locked until threadlog_commit() of the N bytes written there (N may be
 * 0).  NULL when the thread has no buffer: use threadlog_append(). */
char *threadlog_reserve(void);
void threadlog_commit(size_t n, uint32_t tag);

/* Hands R's buffer over (thread exit). */
void threadlog_hand_over(struct thread_record *r);
/* Hands the calling thread's buffer over. */
void threadlog_flush_mine(void);
/* A "#t" line when the last one is MTF_TIME_STEP_NS old and the sink is
 * free now: for a log whose events hand no buffers over (livelog.h). */
void threadlog_time_tick(void);
/* Hands every buffer over (exit, exec, fork, reports, muntrace). */
void threadlog_flush_all(void);
/* The same, but only for buffers whose lock, and the sink's, are free
 * now (a thread dying of a signal inside the tracer may hold them). */
void threadlog_flush_all_nowait(void);
/* From now on every line goes out as it is appended (after exit). */
void threadlog_set_direct(void);
/* In a fork child: the lines belong to the parent's log; locks reset. */
void threadlog_reset_after_fork(void);

/* For the reachability scan (scan.c), which must put its records into the
 * log after every line written before the world stopped and before any
 * written after: lock every buffer; then, the world stopped and the sink's
 * lock held, hand every buffer's lines to PUT; then unlock.  A buffer made
 * after the lock is drained if its lock is free (its thread can have no
 * lines yet: see scan.c). */
void threadlog_lock_all(void);
void threadlog_drain_locked(void (*put)(const char *lines, size_t n));
void threadlog_unlock_all(void);

#endif
