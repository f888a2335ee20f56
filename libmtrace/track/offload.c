/* SPDX-License-Identifier: GPL-3.0-or-later */
/* offload.c - see offload.h.
 *
 * Why: on a C++ compile (bench/RESULTS.md, "The ring") the program's
 * thread spent longer entering its events in the tables (hashing and
 * looking up the stack, the live table, the counters: cache misses one
 * after the other) than unwinding them.  The unwinding must happen on
 * the thread, while its stack is there; the rest can wait a little, and
 * another CPU is usually idle.
 *
 * The ring: one producer (the thread that started the tracer), one
 * consumer (ours).  Records are whole words, never split at the ring's
 * end (a pad record skips it).  The producer publishes HEAD (words
 * written) after each record, the consumer TAIL (words applied) every
 * TAIL_EVERY records and whenever it catches up; each reads the other's
 * word only when it must, so the two cache lines do not bounce on every
 * event.  The frames are unwound straight into the ring.
 *
 * Order: a block's free goes in the ring before the real free(), and its
 * address can only be handed out again after that, so the consumer sees
 * every address's events in the order they happened, as the tables would
 * have.  Anything that reads the tables drains the ring first.  A second
 * program thread stops the ring (offload_stop): PUSHING and RUNNING are a
 * Dekker pair (each side stores its own flag, fences, then loads the
 * other's), so either the producer sees the ring off before it pushes, or
 * the stopper waits for its push to end; then the ring is drained, and
 * from then on every thread enters its own events, as without the ring.
 * A signal handler's allocation inside a push is not an event (the
 * recursion guard is set); should one come, PUSHING set on the producer's
 * own thread, it would drain what is committed and be done inline.
 *
 * A realloc needs the old block's size before the real call (the shim
 * clears what glibc leaves past it): the producer takes it from its own
 * record of the allocation, else from the live table once no record of
 * that address group is left in the ring (offload_realloc_begin).
 *
 * The consumer sleeps on a futex when the ring is empty, for longer each
 * time up to SLEEP_MAX_NS, so an idle program costs it nothing to speak
 * of; the producer wakes it when the ring is an eighth full, a drain
 * whenever it waits. */
#define _GNU_SOURCE
#include "track/offload.h"
#include "base/arena.h"
#include "base/guard.h"
#include "base/ownthread.h"
#include "base/spin.h"
#include "symbols/modmap.h"
#include <linux/futex.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_WORDS (1u << 17) /* 1 MiB: ~5000 events of 24 frames */
#define TAIL_EVERY 64
#define WAKE_AT (RING_WORDS / 8)
#define SPINS 256
#define SLEEP_MIN_NS 50000L
#define SLEEP_MAX_NS 10000000L

atomic_int offload_running;

static uint64_t *ring;
static offload_apply_fn apply;
static _Alignas(64) _Atomic uint64_t head; /* words committed */
static _Alignas(64) _Atomic uint64_t tail; /* words applied */
static _Alignas(64) atomic_int sleeping;   /* the consumer's futex word */
static _Alignas(64) atomic_int pushing;    /* the producer is in a push */
static uint64_t head_local, tail_seen;     /* the producer's own */
static _Thread_local char producer __attribute__((tls_model("initial-exec")));
static _Thread_local char consumer_self
    __attribute__((tls_model("initial-exec")));
static spinlock_t stop_lock = SPINLOCK_INIT(LOCK_RANK_OFFLOAD);
static sem_t ready;

static void (*thread_hook)(void);

void offload_set_thread_hook(void (*fn)(void))
{
    thread_hook = fn;
}

static void futex(atomic_int *word, int op, int val, const struct timespec *t)
{
    syscall(SYS_futex, (int *)word, op | FUTEX_PRIVATE_FLAG, val, t, NULL, 0);
}

static void wake_consumer(void)
{
    if (atomic_load_explicit(&sleeping, memory_order_relaxed))
        futex(&sleeping, FUTEX_WAKE, 1, NULL);
}

/* ---- the consumer ------------------------------------------------------ */

/* No spinning on HEAD here: every read of it would take its cache line
 * from the producer, which writes it on every event (measured: the ring
 * then cost cc1plus more than it saved). */
static void idle(uint64_t t, long *sleep_ns)
{
    atomic_store(&sleeping, 1);
    if (atomic_load(&head) == t) {
        /* Stopped for good: only a drain (of a push that raced the stop)
         * can still need it, and wakes it. */
        struct timespec ts = { 0, *sleep_ns };
        futex(&sleeping, FUTEX_WAIT, 1,
              atomic_load(&offload_running) ? &ts : NULL);
        if (*sleep_ns < SLEEP_MAX_NS)
            *sleep_ns *= 2;
    }
    atomic_store(&sleeping, 0);
}

static void *consumer(void *arg)
{
    (void)arg;
    guard_enter(); /* its allocations (the demangler's) are not events */
    consumer_self = 1;
    modmap_no_loader_here(); /* a thread waiting for it may hold that lock */
    if (thread_hook)
        thread_hook();
    sem_post(&ready);
    uint64_t t = 0;
    long sleep_ns = SLEEP_MIN_NS;
    for (;;) {
        uint64_t h = atomic_load_explicit(&head, memory_order_acquire);
        if (h == t) {
            idle(t, &sleep_ns);
            continue;
        }
        sleep_ns = SLEEP_MIN_NS;
        for (unsigned k = 1; t != h; k++) {
            const uint64_t *r = &ring[t % RING_WORDS];
            if (OFFLOAD_RECORD_OP(r[0]) != OFFLOAD_PAD)
                apply(r);
            t += OFFLOAD_RECORD_WORDS(r[0]);
            if (k % TAIL_EVERY == 0)
                atomic_store_explicit(&tail, t, memory_order_release);
        }
        atomic_store_explicit(&tail, t, memory_order_release);
    }
    return NULL;
}

/* ---- the producer ---------------------------------------------------- */

static int cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    return CPU_COUNT(&set);
}

void offload_start(offload_apply_fn fn)
{
    if (ring || cpus() < 2)
        return;
    ring = pages_map(RING_WORDS * sizeof *ring);
    if (ring == NULL)
        return;
    apply = fn;
    if (ownthread_start(consumer, &ready) != 0)
        return; /* the ring stays mapped, unused: off */
    producer = 1;
    atomic_store(&offload_running, 1);
}

/* Waits for TAIL to reach TARGET, waking the consumer. */
static void wait_tail(uint64_t target)
{
    for (unsigned spins = 0;
         atomic_load_explicit(&tail, memory_order_acquire) < target;
         spins++) {
        wake_consumer();
        if (spins < SPINS)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
}

void offload_drain(void)
{
    if (ring == NULL || consumer_self)
        return;
    wait_tail(atomic_load_explicit(&head, memory_order_acquire));
}

/* The producer's wait for TAIL to reach TARGET, TAIL_SEEN kept: its own
 * view of TAIL is read again only when it is not far enough. */
static void producer_wait(uint64_t target)
{
    if (tail_seen >= target)
        return;
    tail_seen = atomic_load_explicit(&tail, memory_order_acquire);
    if (tail_seen < target) {
        wait_tail(target);
        tail_seen = atomic_load_explicit(&tail, memory_order_acquire);
    }
}

/* Room for WORDS words in one piece; returns where they go. */
static uint64_t *reserve(unsigned words)
{
    for (;;) {
        unsigned at = (unsigned)(head_local % RING_WORDS);
        unsigned need = at + words > RING_WORDS ? RING_WORDS - at : words;
        if (head_local + need > RING_WORDS) /* room once the tail is there */
            producer_wait(head_local + need - RING_WORDS);
        if (need == words)
            return &ring[at];
        ring[at] = OFFLOAD_PAD | (uint64_t)need << 8;
        head_local += need;
        atomic_store_explicit(&head, head_local, memory_order_release);
    }
}

static void commit(unsigned words)
{
    head_local += words;
    atomic_store_explicit(&head, head_local, memory_order_release);
    if (head_local - tail_seen > WAKE_AT) {
        tail_seen = atomic_load_explicit(&tail, memory_order_acquire);
        if (head_local - tail_seen > WAKE_AT)
            wake_consumer();
    }
}

/* ---- what the producer knows of its records ---------------------------
 * For a realloc (offload_realloc_begin): the end of the last record of
 * each group of addresses (a record of an address may still be in the
 * ring), and the size of the last allocation put in the ring at each
 * address, while it is live (a realloc mostly follows its block's
 * allocation closely, its record often not applied yet).  The producer's
 * own: no other thread reads them. */
#define GROUPS 4096
#define SIZES 1024
_Static_assert(GROUPS == 1 << 12 && SIZES == 1 << 10,
               "group_of and size_slot take 12 and 10 bits of mix()");
static uint64_t group_end[GROUPS];
static struct {
    uintptr_t ptr;
    size_t size;
} sizes[SIZES];

static uint64_t mix(uintptr_t ptr)
{
    return (ptr >> 4) * 0x9e3779b97f4a7c15ull;
}

static uint64_t *group_of(uintptr_t ptr)
{
    return &group_end[mix(ptr) >> 52]; /* 12 bits: GROUPS */
}

static unsigned size_slot(uintptr_t ptr)
{
    return (unsigned)(mix(ptr) >> 54); /* 10 bits: SIZES */
}

static void noted(uintptr_t ptr)
{
    *group_of(ptr) = head_local;
}

/* ---- pushing -------------------------------------------------------------- */

/* Begins a push: 0 when the event is to be done inline instead. */
static int enter(void)
{
    if (atomic_load_explicit(&pushing, memory_order_relaxed)) {
        offload_drain(); /* see the top: a signal handler's event */
        return 0;
    }
    atomic_store_explicit(&pushing, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst); /* Dekker: see the top */
    if (atomic_load_explicit(&offload_running, memory_order_relaxed))
        return 1;
    atomic_store_explicit(&pushing, 0, memory_order_release);
    return 0;
}

static void leave(void)
{
    atomic_store_explicit(&pushing, 0, memory_order_release);
}

static void push_alloc(uintptr_t ptr, size_t size, offload_walk_fn walk,
                       const void *arg, int max)
{
    uint64_t *r = reserve(4 + (unsigned)max);
    void *known = NULL;
    int n = walk((void **)&r[3], max, arg, &known);
    if (n > 0) {
        r[0] = OFFLOAD_ALLOC | (uint64_t)(3 + n) << 8 | (uint64_t)n << 32;
    } else {
        r[0] = OFFLOAD_KNOWN | 4ull << 8;
        r[3] = (uintptr_t)known;
    }
    r[1] = ptr;
    r[2] = size;
    commit(OFFLOAD_RECORD_WORDS(r[0]));
    noted(ptr);
    sizes[size_slot(ptr)].ptr = ptr;
    sizes[size_slot(ptr)].size = size;
}

static void push_free(uintptr_t ptr)
{
    uint64_t *r = reserve(2);
    r[0] = OFFLOAD_FREE | 2ull << 8;
    r[1] = ptr;
    commit(2);
    noted(ptr);
    if (sizes[size_slot(ptr)].ptr == ptr)
        sizes[size_slot(ptr)].ptr = 0;
}

int offload_alloc(uintptr_t ptr, size_t size, offload_walk_fn walk,
                  const void *arg, int max)
{
    if (!enter())
        return 0;
    push_alloc(ptr, size, walk, arg, max);
    leave();
    return 1;
}

int offload_free(uintptr_t ptr)
{
    if (!enter())
        return 0;
    push_free(ptr);
    leave();
    return 1;
}

int offload_realloc_begin(uintptr_t old, size_t *old_size)
{
    if (!enter())
        return OFFLOAD_NO;
    if (sizes[size_slot(old)].ptr == old) {
        *old_size = sizes[size_slot(old)].size;
        return OFFLOAD_SIZE_KNOWN;
    }
    producer_wait(*group_of(old));
    return OFFLOAD_SIZE_IN_TABLE;
}

void offload_realloc_end(uintptr_t old, int in_table, uintptr_t new_ptr,
                         size_t size, offload_walk_fn walk, const void *arg,
                         int max)
{
    if (new_ptr) {
        if (in_table)
            push_free(old);
        push_alloc(new_ptr, size, walk, arg, max);
    }
    leave();
}

/* ---- stopping ------------------------------------------------------- */

void offload_stop(void)
{
    spin_lock(&stop_lock);
    if (atomic_load(&offload_running)) {
        atomic_store_explicit(&offload_running, 0, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst); /* Dekker: see the top */
        /* The ring's own thread inside a push is a signal handler's
         * event there: the push ends after the handler; its record is
         * applied then, as any. */
        if (!producer)
            while (atomic_load_explicit(&pushing, memory_order_acquire))
                sched_yield();
    }
    spin_unlock(&stop_lock);
    offload_drain();
}

int offload_here_slow(void)
{
    if (producer)
        return 1;
    offload_stop();
    return 0;
}

void offload_after_fork_child(void)
{
    atomic_store(&offload_running, 0);
    ring = NULL; /* the parent's: the child has no consumer */
    atomic_store(&head, 0);
    atomic_store(&tail, 0);
    atomic_store(&pushing, 0);
    atomic_store(&sleeping, 0);
    head_local = tail_seen = 0;
    spin_init(&stop_lock, LOCK_RANK_OFFLOAD);
}
