/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracer.h - the tracker core: turns allocation events into live-table
 * entries, counters and log lines (tracelog.h), keeps the peak, and
 * orchestrates start, stop and fork.  The shim (shim.c) calls the event
 * functions with the recursion guard set and only while tracer_active().
 */
#ifndef MT_TRACER_H
#define MT_TRACER_H
#include "track/collecting.h"
#include "track/livetab.h"
#include <stddef.h>
#include <stdint.h>

void tracer_on_alloc(void *ptr, size_t size, const void *caller);
/* Before the real free(): logs it if PTR was allocated while tracing. */
void tracer_on_free(void *ptr, const void *caller);

/* realloc of a non-NULL block to a non-zero size, in two halves around the
 * real call so that "<" is logged before the old block can be reused.
 * WANTED (the caller's): the new block is to be recorded (sampler.h); when
 * it is not, the old block's release is logged as a free. */
struct realloc_ticket {
    int wanted;    /* the new block is to be recorded (sampler.h)    */
    int tracked;   /* the old block was allocated while tracing      */
    int inherited; /* ... by the parent of this fork child           */
    size_t old_size;
    uint32_t old_stack;
    struct livetab_spot spot; /* where the old block's entry is left */
    int in_ring; /* in the ring from begin to end (track/offload.h)  */
};
void tracer_realloc_begin(void *old, const void *caller,
                          struct realloc_ticket *t);
void tracer_realloc_end(void *old, void *new_ptr, size_t size,
                        const void *caller, const struct realloc_ticket *t);

/* The stack of the current call, CALLER its frame 0 (as an event's);
 * NULL when it cannot be stored.  Inside the fork gate (forkgate.h). */
struct stack *tracer_stack(const void *caller);

/* Control (control.c calls these with the guard set). */
void tracer_start(void);         /* first mtrace() or mtraceinit      */
void tracer_stop(void);          /* muntrace(): "= End", close, stop  */
void tracer_before_dlclose(void); /* the ring applied (offload.h)     */
void tracer_after_dlclose(void); /* unloaded modules, new code epoch  */
void tracer_fork_prepare(void);
void tracer_fork_parent(void);
void tracer_fork_child(void);
int tracer_started(void);
/* The calling thread's word for the unwinder's memo (unwind_stack_memo). */
void **tracer_unwind_slot(void);
/* Highest live byte count seen, after counting LIVE_NOW (exact now). */
long tracer_peak_bytes(long live_now);


#endif
