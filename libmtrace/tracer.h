/* tracer.h - the tracker core: turns allocation events into live-table
 * entries, stack records and log lines.  The shim (shim.c) calls these with
 * the recursion guard set and only while tracer_active().
 * GPL-3.0-or-later. */
#ifndef MT_TRACER_H
#define MT_TRACER_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

extern atomic_int mt_collecting;

/* True while allocations are being collected (hot path: one load). */
static inline int tracer_active(void)
{
    return atomic_load_explicit(&mt_collecting, memory_order_relaxed);
}

void tracer_on_alloc(void *ptr, size_t size, const void *caller);
/* Before the real free(): logs it if PTR was allocated while tracing. */
void tracer_on_free(void *ptr, const void *caller);

/* realloc of a non-NULL block to a non-zero size, in two halves around the
 * real call so that "<" is logged before the old block can be reused. */
struct realloc_ticket {
    int tracked;
    size_t old_size;
    uint32_t old_stack;
};
void tracer_realloc_begin(void *old, const void *caller,
                          struct realloc_ticket *t);
void tracer_realloc_end(void *old, void *new_ptr, size_t size,
                        const void *caller, const struct realloc_ticket *t);

/* Control (control.c calls these with the guard set). */
void tracer_start(void);         /* first mtrace() or mtraceinit      */
void tracer_stop(void);          /* muntrace(): "= End", close, stop  */
void tracer_after_dlclose(void); /* unloaded modules, new code epoch  */
void tracer_exit_flush(void);    /* exit(): flush, then unbuffered    */
/* Everything logged so far goes to the file: _exit(), exec(), reports.
 * The caller entered the guard. */
void tracer_write_out(void);
void tracer_fork_prepare(void);
void tracer_fork_parent(void);
void tracer_fork_child(void);
int tracer_started(void);
/* A "# A B C" comment line in the log (guard entered, no lock held). */
void tracer_note(const char *a, const char *b, const char *c);
/* Highest live byte count seen, after counting LIVE_NOW (exact now). */
long tracer_peak_bytes(long live_now);
/* The log's path when one is open, else NULL (reports are named from it). */
const char *tracer_log_path(void);

/* The reachability scan's records (scan.c).  tracer_scan_lock takes every
 * thread buffer's lock, then the log's; with the world stopped,
 * tracer_scan_flush moves every buffered line into the log, and
 * tracer_scan_put appends a record line after them (a no-op when no
 * extended log is written).  tracer_scan_unlock lets go. */
void tracer_scan_lock(void);
void tracer_scan_flush(void);
int tracer_scan_logging(void);
void tracer_scan_put(const char *line, size_t n);
void tracer_scan_unlock(void);

#endif
