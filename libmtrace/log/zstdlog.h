/* SPDX-License-Identifier: GPL-3.0-or-later */
/* zstdlog.h - a compressed log (MALLOC_TRACE=trace.log.zst, or
 * MEMLEAK_CONFIG=compress=zstd): the log's writer (tracelog.c) hands each
 * full 64 KiB buffer to a thread of ours, which compresses it with
 * libzstd and writes the result; the program's threads only wait when
 * ZLOG_QUEUE buffers are already waiting for it.
 *
 * The file is a sequence of zstd frames (doc/format.md, "Compressed
 * logs"), first a skippable frame holding the header lines as text (an
 * exec'd image looks for its "proc=" there, logfile.c).  Every point
 * where the log is written out (a report, fork, exec, exit, _exit,
 * quick_exit, muntrace, a fatal signal) waits until the thread has done
 * what was queued, then ends the frame on the calling thread: there the
 * file is whole.  Between those points the frame grows in the background;
 * a process killed by SIGKILL leaves it unfinished, and readers get every
 * block written before (zstdcat then reports the frame truncated).
 *
 * The thread is created when the first buffer fills (small programs never
 * get one): not under any lock of ours, with every signal blocked, its
 * allocations untraced (libzstd allocates through __libc_malloc).  Until
 * then, in a fork child until its own is made, and for good when it cannot
 * be created (one diag() line), the program's thread that fills a buffer
 * compresses it.  A fork child never writes into its parent's stream: it
 * starts a stream of its own with its own log.
 *
 * All calls but zstdlog_poll() are made with the log lock held.
 * GPL-3.0-or-later. */
#ifndef MT_ZSTDLOG_H
#define MT_ZSTDLOG_H
#include <stdatomic.h>
#include <sys/types.h>

struct writer;

/* Whether the log at PATH is written compressed (MEMLEAK_CONFIG's
 * compress=, or by default a name ending in ".zst"). */
int zstdlog_wanted(const char *path);

/* From now on W's buffers are compressed into W's file (W was just opened
 * and may hold the header).  0, or an errno when libzstd or the buffers
 * could not be had: W then stays as it was (a plain log). */
int zstdlog_attach(struct writer *w);

/* Between an exec's "#e exec" and the exec's return (it failed): every
 * buffer is a whole frame written on the spot, so an image replaced
 * meanwhile leaves no frame open. */
void zstdlog_exec_begin(void);
void zstdlog_exec_failed(void);

/* fork(): the parent's stream is whole and still (tracelog.c wrote it
 * out); the child forgets it and starts from nothing. */
void zstdlog_fork_prepare(void);
void zstdlog_fork_parent(void);
void zstdlog_fork_child(void);

/* Starts the compressor thread once a buffer has asked for it.  Called on
 * the hot path after an event, outside every lock of ours, inside the fork
 * gate, with the recursion guard set: one load when nothing is wanted. */
extern atomic_int zstdlog_thread_wanted;
void zstdlog_start_thread(void);
static inline void zstdlog_poll(void)
{
    if (__builtin_expect(
            atomic_load_explicit(&zstdlog_thread_wanted, memory_order_relaxed),
            0))
        zstdlog_start_thread();
}

#endif
