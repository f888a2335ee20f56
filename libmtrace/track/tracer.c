/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracer.c - the tracker core (see tracer.h): allocation events, peak
 * accounting, and the orchestration of start, stop and fork.
 *
 * Everything that may take the loader's lock (unwinding, dladdr,
 * dl_iterate_phdr, first sight of a frame) happens here, before any lock
 * of ours is taken; the log (tracelog.c) only formats and writes.
 * A free is logged before the real free() and a realloc's "<" before the
 * real realloc(), and the live table carries the tags that let threadlog
 * keep a free after its allocation and an allocation after the free of
 * the same address: the log is causally ordered across threads.
 * In a live log (MEMLEAK_CONFIG=log=live, livemode.h) the events write no
 * line and the tags say whether a block's "+" is in the log: only the
 * free of such a block writes its "-", before the real free.
 * GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "track/tracer.h"
#include "../include/mtrace-format.h"
#include "base/arena.h"
#include "base/config.h"
#include "track/counters.h"
#include "track/fdtab.h"
#include "track/forkgate.h"
#include "symbols/frametab.h"
#include "track/livemode.h"
#include "track/livetab.h"
#include "track/offload.h"
#include "log/livelog.h"
#include "track/xblocks.h"
#include "symbols/modmap.h"
#include "base/sampler.h"
#include "symbols/stacktab.h"
#include "log/threadlog.h"
#include "log/threads.h"
#include "log/timestamp.h"
#include "log/tracelog.h"
#include "unwind/unwind.h"
#include <pthread.h>
#include <sys/single_threaded.h>

atomic_int mt_collecting;
static int started;

int tracer_started(void)
{
    return started;
}

/* ---- stacks ---------------------------------------------------------- */

/* Where the unwinder keeps this thread's memo: in the thread's record. */
static inline void **unwind_slot(void)
{
    struct thread_record *r = thread_record();
    return r ? &r->unwind_memo : NULL;
}

void **tracer_unwind_slot(void)
{
    return unwind_slot();
}

static struct stack *current_stack(const void *caller)
{
    void *frames[MTF_MAX_DEPTH];
    if (mt_config.classic) {
        frames[0] = (void *)caller; /* glibc's lines need the caller only */
        return stacktab_intern(frames, 1);
    }
    /* A replayed walk brings back the stack found for it last time. */
    void **memo;
    int n = unwind_stack_memo(frames, mt_config.depth, caller,
                              unwind_slot(), &memo);
    if (memo && *memo)
        return *memo;
    if (n == UNWIND_KNOWN) { /* never without the word: be safe */
        frames[0] = (void *)caller;
        n = 1;
    }
    struct stack *s = stacktab_intern(frames, n);
    if (memo)
        *memo = s;
    return s;
}

struct stack *tracer_stack(const void *caller)
{
    return current_stack(caller);
}

/* Peak live bytes: each thread adds its changes to the global count in
 * batches, so threads do not fight over one cache line on every event;
 * the peak is exact to within PEAK_BATCH bytes per thread. */
#define PEAK_BATCH (64 * 1024)
static __thread long unbatched_bytes __attribute__((tls_model("initial-exec")));
static atomic_long batched_live_bytes, peak_live_bytes;

static void raise_peak(long live)
{
    long peak = atomic_load_explicit(&peak_live_bytes, memory_order_relaxed);
    while (live > peak &&
           !atomic_compare_exchange_weak(&peak_live_bytes, &peak, live))
        ;
}

static void account_bytes(long delta)
{
    unbatched_bytes += delta;
    if (unbatched_bytes > PEAK_BATCH || unbatched_bytes < -PEAK_BATCH) {
        long live = atomic_fetch_add(&batched_live_bytes, unbatched_bytes) +
                    unbatched_bytes;
        unbatched_bytes = 0;
        raise_peak(live);
    }
}

/* A fork child starts from nothing: the inherited blocks are not its. */
static void peak_reset(void)
{
    unbatched_bytes = 0;
    atomic_store(&batched_live_bytes, 0);
    atomic_store(&peak_live_bytes, 0);
}

long tracer_peak_bytes(long live_now)
{
    raise_peak(live_now);
    return atomic_load(&peak_live_bytes);
}

/* What a block of SIZE bytes counts for: itself, or in sampling mode the
 * blocks it stands for (sampler.h). */
static void weigh(size_t size, long *bytes, long *blocks)
{
    *bytes = (long)size;
    *blocks = 1;
    if (mt_sample_rate)
        sampler_weigh(size, bytes, blocks);
}

static void count_alloc(uint32_t id, size_t size)
{
    long bytes, blocks;
    weigh(size, &bytes, &blocks);
    account_bytes(bytes);
    counters_add_alloc(id, blocks, bytes);
}

static void count_free(uint32_t id, size_t size)
{
    long bytes, blocks;
    weigh(size, &bytes, &blocks);
    account_bytes(-bytes);
    counters_add_free(id, blocks, bytes);
}

/* Sampling mode keeps a filter of the recorded blocks' addresses. */
static void hold(const void *ptr)
{
    if (mt_sample_rate)
        sampler_hold(ptr);
}

static void release(const void *ptr)
{
    if (mt_sample_rate)
        sampler_release(ptr);
}

/* Undoes a free (a failed realloc gave the block back). */
static void uncount_free(uint32_t id, size_t size)
{
    long bytes, blocks;
    weigh(size, &bytes, &blocks);
    account_bytes(bytes);
    counters_add_free(id, -blocks, -bytes);
}

/* ---- events ------------------------------------------------------------ */

/* Each event runs inside the fork gate (forkgate.h): unwinding and the
 * first sight of a frame may enter the loader. */

/* A live log (livemode.h): the events write no line; every LIVELOG_TICK
 * of a thread's, a "#t" when one is due, as a full log's hand-overs. */
static __thread unsigned live_events __attribute__((tls_model("initial-exec")));

static void live_tick(void)
{
    if (++live_events % LIVELOG_TICK == 0)
        threadlog_time_tick();
}

/* A new block in a live log's tables, its "+" unwritten. */
static void live_enter(uintptr_t ptr, size_t size, uint32_t id)
{
    livetab_insert_young(ptr, size, id);
    count_alloc(id, size);
}

/* A block out of a live log's tables: when its "+" is in the log (TAG),
 * its "-" now, before the real free. */
static void live_forget(void *ptr, uint32_t id, size_t size, uint32_t tag)
{
    count_free(id, size);
    if (tag)
        livelog_put_free(ptr, stacktab_by_id(id));
}

/* Both, as the program's thread's events (the ring's consumer's are not). */
static void live_release(void *ptr, uint32_t id, size_t size, uint32_t tag)
{
    live_forget(ptr, id, size, tag);
    live_tick();
}

/* ---- the ring (offload.h) ----------------------------------------------
 * The program's thread only unwinds, straight into the ring; the consumer
 * enters it with live_enter and live_forget, as the thread would. */

/* The frames, or 0 and the stack the memo found for this walk before the
 * ring started (entries made since carry none: their stacks are the
 * consumer's to find). */
static int ring_walk(void **frames, int max, const void *caller,
                     void **known)
{
    void **memo;
    int n = unwind_stack_memo(frames, max, caller, unwind_slot(), &memo);
    if (memo && *memo) {
        *known = *memo;
        return 0;
    }
    if (n < 1) { /* UNWIND_KNOWN without the word: be safe */
        frames[0] = (void *)caller;
        n = 1;
    }
    return n;
}

static void ring_apply(const uint64_t *r)
{
    unsigned op = OFFLOAD_RECORD_OP(r[0]);
    if (op == OFFLOAD_ALLOC || op == OFFLOAD_KNOWN) {
        struct stack *s =
            op == OFFLOAD_KNOWN
                ? (struct stack *)r[3]
                : stacktab_intern((void *const *)&r[3],
                                  OFFLOAD_RECORD_FRAMES(r[0]));
        if (s)
            live_enter(r[1], r[2], stack_id(s));
        return;
    }
    size_t size;
    uint32_t id, alloc_tag;
    if (livetab_remove_tagged(r[1], &size, &id, &alloc_tag, 0) !=
            LIVE_ABSENT &&
        id != LIVE_STACK_INHERITED)
        live_forget((void *)r[1], id, size, alloc_tag);
}

/* The ring starts once the program has met mt_config.offload distinct
 * stacks, if it still has one thread: a program of few stacks finds them
 * in the unwinder's memo, and a thread of ours would cost it glibc's
 * single-thread shortcuts (sqlite3 lost as much in its mutexes as the ring
 * saved, bench/RESULTS.md). */
static int ring_wanted;

static void ring_maybe_start(void)
{
    if (stacktab_count() < (uint32_t)mt_config.offload)
        return;
    ring_wanted = 0;
    if (__libc_single_threaded)
        offload_start(ring_apply);
}

/* Whether this thread's events go in the ring (offload_here). */
static int ring_here(void)
{
    return livemode_on && offload_here();
}

/* Whether the event goes in the ring (then it is in). */
static int ring_alloc(void *ptr, size_t size, const void *caller)
{
    if (!ring_here() ||
        !offload_alloc((uintptr_t)ptr, size, ring_walk, caller,
                       (int)mt_config.depth))
        return 0;
    live_tick();
    return 1;
}

/* The old block's size, for the shim to clear what realloc() adds past
 * it (chunkwords.h), from the ring's record or the table; whether the
 * table holds it (its release goes in the ring after the call), ours or
 * inherited (a fork child's ring). */
static int ring_realloc_begin(void *old, struct realloc_ticket *t)
{
    uint32_t stack;
    t->tracked = t->inherited = 0;
    switch (offload_realloc_begin((uintptr_t)old, &t->old_size)) {
    case OFFLOAD_SIZE_KNOWN:
        t->tracked = 1;
        return 1;
    case OFFLOAD_SIZE_IN_TABLE:
        if (livetab_lookup((uintptr_t)old, &t->old_size, &stack)) {
            t->inherited = stack == LIVE_STACK_INHERITED;
            t->tracked = !t->inherited;
        }
        return 1;
    default:
        return 0;
    }
}

static int ring_free(void *ptr)
{
    return ring_here() && offload_free((uintptr_t)ptr);
}

static void on_alloc(void *ptr, size_t size, const void *caller)
{
    if (ring_alloc(ptr, size, caller))
        return;
    struct stack *s = current_stack(caller);
    if (s == NULL)
        return;
    if (livemode_on) {
        if (ring_wanted)
            ring_maybe_start();
        live_enter((uintptr_t)ptr, size, stack_id(s));
        live_tick();
        return;
    }
    uint32_t tag = tracelog_line_tag();
    /* Another thread's free of this address must be out before our "+". */
    threadlog_settle(
        livetab_insert_tagged((uintptr_t)ptr, size, stack_id(s), tag));
    hold(ptr);
    count_alloc(stack_id(s), size);
    tracelog_event(MTF_OP_ALLOC, ptr, size, 1, s, s->frames[0], tag);
}

void tracer_on_alloc(void *ptr, size_t size, const void *caller)
{
    gate_enter();
    on_alloc(ptr, size, caller);
    gate_leave();
}

/* Logs the release of a block found in the live table (a free or a
 * realloc's "<"), after its allocation line, which may be another
 * thread's.  A release the table could not remember is written out at
 * once, before the memory can be reused. */
static void log_release(char op, void *ptr, uint32_t id, size_t size,
                        const void *caller, int found, uint32_t alloc_tag,
                        uint32_t tag)
{
    threadlog_settle(alloc_tag);
    count_free(id, size);
    /* "@ WHERE" of a release is read by glibc's checker only to warn about
     * a block never allocated, which our logs never hold: only the classic
     * log (glibc's exact lines) writes it (doc/format.md).  Without a log
     * (a report at exit only) the stack is not even looked up: a cache
     * miss a free. */
    if (tracelog_logging())
        tracelog_event(op, ptr, 0, 0, stacktab_by_id(id),
                       mt_config.classic ? frametab_get((uintptr_t)caller)
                                         : NULL,
                       tag);
    if (found == LIVE_FOUND_UNMARKED)
        threadlog_flush_mine();
}

void tracer_on_free(void *ptr, const void *caller)
{
    size_t size;
    if (ring_free(ptr))
        return;
    uint32_t id, alloc_tag, tag = livemode_on ? 0 : tracelog_line_tag();
    int found = livetab_remove_tagged((uintptr_t)ptr, &size, &id, &alloc_tag,
                                      tag);
    if (found == LIVE_ABSENT)
        return; /* not allocated while tracing: nothing to pair it with */
    release(ptr);
    /* Allocated by the parent of this fork child: not ours to log. */
    if (id == LIVE_STACK_INHERITED)
        return;
    gate_enter();
    if (livemode_on)
        live_release(ptr, id, size, alloc_tag);
    else
        log_release(MTF_OP_FREE, ptr, id, size, caller, found, alloc_tag, tag);
    gate_leave();
}

void tracer_realloc_begin(void *old, const void *caller,
                          struct realloc_ticket *t)
{
    t->in_ring = ring_here() && ring_realloc_begin(old, t);
    if (t->in_ring)
        return;
    uint32_t alloc_tag, tag = livemode_on ? 0 : tracelog_line_tag();
    int found = livetab_remove_at((uintptr_t)old, &t->old_size, &t->old_stack,
                                  &alloc_tag, tag, &t->spot);
    t->inherited = found != LIVE_ABSENT && t->old_stack == LIVE_STACK_INHERITED;
    t->tracked = found != LIVE_ABSENT && !t->inherited;
    if (found != LIVE_ABSENT)
        release(old);
    if (!t->tracked)
        return;
    gate_enter();
    if (livemode_on) { /* "-" of the old block; the new one is unwritten */
        live_release(old, t->old_stack, t->old_size, alloc_tag);
        gate_leave();
        return;
    }
    /* A "<" is always followed by its ">" (or "!"): when the new block is
     * not to be recorded, the old one is simply freed. */
    log_release(t->wanted ? MTF_OP_RE_OLD : MTF_OP_FREE, old, t->old_stack,
                t->old_size, caller, found, alloc_tag, tag);
    gate_leave();
}

/* The real realloc failed: the old block is still the program's.  "!" as
 * glibc writes it, then "+" to give the block back to every reader. */
static void realloc_failed(void *old, size_t size, const void *caller,
                           const struct realloc_ticket *t)
{
    struct stack *old_stack = stacktab_by_id(t->old_stack);
    if (livemode_on) { /* the old block is live again, not written */
        livetab_insert_tagged((uintptr_t)old, t->old_size, t->old_stack, 0);
        uncount_free(t->old_stack, t->old_size);
        return;
    }
    struct stack *s = current_stack(caller);
    uint32_t tag = tracelog_line_tag();
    /* What the table remembers of the "<" is this thread's own line. */
    livetab_insert_tagged((uintptr_t)old, t->old_size, t->old_stack, tag);
    hold(old);
    uncount_free(t->old_stack, t->old_size);
    if (s)
        tracelog_event(MTF_OP_RE_FAIL, old, size, 1, s, s->frames[0], tag);
    if (old_stack)
        tracelog_event(MTF_OP_ALLOC, old, t->old_size, 1, old_stack,
                       old_stack->frames[0], tag);
}

static void realloc_end(void *old, void *new_ptr, size_t size,
                        const void *caller, const struct realloc_ticket *t)
{
    if (t->in_ring) {
        /* (Every block is wanted: no ring in sampling mode.) */
        offload_realloc_end((uintptr_t)old, t->tracked || t->inherited,
                            (uintptr_t)new_ptr, size, ring_walk, caller,
                            (int)mt_config.depth);
        if (new_ptr)
            live_tick();
        return;
    }
    if (new_ptr == NULL) {
        if (t->tracked)
            realloc_failed(old, size, caller, t);
        else if (t->inherited) { /* still the parent's block */
            livetab_insert_tagged((uintptr_t)old, t->old_size,
                                  LIVE_STACK_INHERITED, 0);
            hold(old);
        }
        return;
    }
    if (!t->wanted)
        return;
    struct stack *s = current_stack(caller);
    if (s == NULL)
        return;
    if (livemode_on) { /* unwritten, as any new block */
        live_enter((uintptr_t)new_ptr, size, stack_id(s));
        live_tick();
        return;
    }
    uint32_t tag = tracelog_line_tag();
    /* In place: its entry is where the "<" left it. */
    threadlog_settle(
        new_ptr == old && t->tracked
            ? livetab_reinsert(&t->spot, (uintptr_t)new_ptr, size,
                               stack_id(s), tag)
            : livetab_insert_tagged((uintptr_t)new_ptr, size, stack_id(s),
                                    tag));
    hold(new_ptr);
    count_alloc(stack_id(s), size);
    /* A block not allocated while tracing becomes a new allocation. */
    char op = t->tracked ? MTF_OP_RE_NEW : MTF_OP_ALLOC;
    tracelog_event(op, new_ptr, size, 1, s, s->frames[0], tag);
}

void tracer_realloc_end(void *old, void *new_ptr, size_t size,
                        const void *caller, const struct realloc_ticket *t)
{
    gate_enter();
    realloc_end(old, new_ptr, size, caller, t);
    gate_leave();
}

/* ---- start and stop ----------------------------------------------------- */

void tracer_start(void)
{
    if (started)
        return;
    started = 1;
    livemode_on = mt_config.log == LOG_LIVE;
    if (!mt_config.classic) /* "#t" records (timestamp.h) */
        threadlog_set_clock(timestamp_now);
    tracelog_start(unwind_name, collection_stop);
    ring_wanted = livemode_on && mt_config.offload && !mt_sample_rate;
    atomic_store(&mt_collecting, 1);
}

void tracer_stop(void)
{
    offload_drain();
    collection_stop();
    tracelog_end(MTF_END_MUNTRACE, 1, 1);
}

void tracer_before_dlclose(void)
{
    offload_drain(); /* the ring's frames are found while their code is in */
}

void tracer_after_dlclose(void)
{
    gate_enter();
    int gone = modmap_mark_unloaded();
    gate_leave();
    if (gone == 0)
        return;
    /* The same addresses may hold other code later: the unwinder forgets
     * its rules for them now; frames and stacks are checked when next met
     * (frametab_check). */
    unwind_forget_code();
    tracelog_unloaded();
}

/* ---- fork ---------------------------------------------------------------
 * prepare takes every tracer lock so the child inherits consistent tables;
 * the child then starts a log of its own and never writes into the
 * parent's.  The blocks it inherits are not its own: they stay in the live
 * table (a reachability scan walks through them) marked as inherited, and
 * are never logged or reported in the child. */

void tracer_fork_prepare(void)
{
    /* The ring off for good, and empty: the consumer may enter the loader
     * (a frame's first sight), so nothing of it may run from here on. */
    offload_stop();
    gate_close_for_fork(); /* first: threads inside may wait for our locks */
    threadlog_flush_all(); /* no thread appends now: all are outside */
    tracelog_fork_prepare();
    stacktab_lock_for_fork();
    frametab_lock_for_fork();
    livetab_lock_all();
    arena_lock_for_fork();
    tracelog_fork_lock_queue(); /* innermost: debug.h */
}

/* The table locks prepare took, in reverse order. */
static void release_table_locks(void)
{
    arena_unlock_after_fork();
    livetab_unlock_all();
    frametab_unlock_after_fork();
    stacktab_unlock_after_fork();
}

void tracer_fork_parent(void)
{
    tracelog_fork_unlock_queue();
    release_table_locks();
    tracelog_fork_parent();
    gate_open_after_fork();
}

void tracer_fork_child(void)
{
    /* Only this thread survives, and it holds every lock: release them. */
    release_table_locks();
    modmap_note_fork_child();
    unwind_after_fork_child();
    offload_after_fork_child();
    tracelog_fork_child();
    modmap_reset_after_fork();
    threads_reset_after_fork();
    threadlog_reset_after_fork();
    gate_open_after_fork();
    livetab_disown_all();
    xblocks_reset_after_fork();
    counters_reset_after_fork();
    peak_reset();
    fdtab_reset(); /* the descriptors it inherited are not its own */
}
