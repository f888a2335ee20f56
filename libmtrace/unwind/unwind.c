/* SPDX-License-Identifier: GPL-3.0-or-later */
/* unwind.c - unwinding behind unwind_stack().  The default is our own
 * .eh_frame unwinder (fastunwind.c), several times cheaper than libunwind's
 * unw_backtrace and far cheaper than glibc's backtrace() (libgcc's DWARF
 * unwinder); bench/RESULTS.md has the figures.  All three are correct on
 * -O2 code without frame pointers.  libunwind also steals descriptors: its
 * memory validation keeps a pipe, and when a program closes every
 * descriptor it closes "its" pipe again, which by then is one of the
 * program's files.  An opt-in frame-pointer walk is the cheapest of all,
 * for programs built with -fno-omit-frame-pointer.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "unwind/unwind.h"
#include "../include/mtrace-format.h"
#include "base/arena.h"
#include "base/config.h"
#include "unwind/fastunwind.h"
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <libunwind.h>
#include <string.h>

/* Frames of the tracer itself above CALLER: at most this many are looked
 * through to find CALLER. */
#define OWN_FRAMES_MAX 8

static enum unwinder current = UNWIND_FAST;
/* Where libmtrace's own code is (its PT_LOAD extent). */
static uintptr_t own_lo, own_hi;

static int note_own_extent(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t self = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < lo)
            lo = start;
        if (start + ph->p_memsz > hi)
            hi = start + ph->p_memsz;
    }
    if (self < lo || self >= hi)
        return 0;
    own_lo = lo;
    own_hi = hi;
    return 1;
}

void unwind_select(enum unwinder which)
{
    current = which;
    if (which == UNWIND_LIBUNWIND)
        unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

const char *unwind_name(void)
{
    return config_unwinders[current];
}

/* This thread's stack, so the frame-pointer walk never reads outside it. */
static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));

static void learn_stack_bounds(void)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        stack_lo = (uintptr_t)addr;
        stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

/* Follows the saved-RBP chain.  Only right for code built with frame
 * pointers; elsewhere it stops early or skips frames, but it never reads
 * outside this thread's stack: each link must point further up it. */
static __attribute__((noinline)) int frame_pointer_walk(void **frames, int max)
{
    if (stack_hi == 0)
        learn_stack_bounds();
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    int n = 0;
    while (n < max && fp >= stack_lo && fp + 16 <= stack_hi && fp % 8 == 0) {
        uintptr_t next = ((uintptr_t *)fp)[0];
        uintptr_t ret = ((uintptr_t *)fp)[1];
        if (ret == 0)
            break;
        frames[n++] = (void *)ret;
        if (next <= fp)
            break;
        fp = next;
    }
    return n;
}

/* This thread's memo of recent walks (fastunwind.h), made on first use
 * in the word SLOT the caller keeps for the thread (NULL: none). */
static __attribute__((noinline)) struct fastunwind_memo *
thread_memo_make(void **slot)
{
    /* Sized by the walks we ask for: entries of the deepest ones. */
    int depth = mt_config.depth + OWN_FRAMES_MAX;
    struct fastunwind_memo *m = pages_map(fastunwind_memo_size(depth));
    if (m)
        fastunwind_memo_init(m, depth);
    *slot = m;
    return m;
}

static inline struct fastunwind_memo *thread_memo(void **slot)
{
    if (slot == NULL)
        return NULL;
    return *slot ? *slot : thread_memo_make(slot);
}

static int raw_unwind(void **frames, int max, struct fastunwind_memo *memo)
{
    switch (current) {
    case UNWIND_GLIBC:
        return backtrace(frames, max);
    case UNWIND_FP:
        return frame_pointer_walk(frames, max);
    case UNWIND_FAST:
        return fastunwind_backtrace_memo(frames, max, memo);
    default:
        return unw_backtrace(frames, max);
    }
}

/* CALLER was not among the first OWN_FRAMES_MAX frames: the frame-pointer
 * walk does not see it when our own frames have no frame pointer, and a
 * build that inlines less (DEBUG=1, sanitizers) has more frames of ours.
 * The caller, then what the walk found past our own code; when that
 * starts with the caller itself, it is not written twice. */
static int caller_then_rest(void **frames, int max, const void *caller,
                            void *const *raw, int n)
{
    int k = 0, out = 0;
    while (k < n && (uintptr_t)raw[k] >= own_lo && (uintptr_t)raw[k] < own_hi)
        k++;
    if (k < n && raw[k] == caller)
        k++;
    frames[out++] = (void *)caller;
    for (; k < n && out < max; k++)
        frames[out++] = raw[k];
    return out;
}

/* The frames from CALLER on, or UNWIND_KNOWN: MEMO (the fast unwinder's
 * only, else NULL) replayed a walk whose stack its caller keeps. */
static int unwind_stack(void **frames, int max, const void *caller,
                        struct fastunwind_memo *memo)
{
    void *raw[MTF_MAX_DEPTH + OWN_FRAMES_MAX];
    int n = raw_unwind(raw, max + OWN_FRAMES_MAX, memo);
    if (n == FASTUNWIND_KNOWN)
        return UNWIND_KNOWN;
    int start = -1;
    for (int i = 0; i < n && i < OWN_FRAMES_MAX; i++)
        if (raw[i] == caller) {
            start = i;
            break;
        }
    if (start < 0)
        return caller_then_rest(frames, max, caller, raw, n);
    n -= start;
    if (n > max)
        n = max;
    memcpy(frames, raw + start, (size_t)n * sizeof *frames);
    return n;
}

int unwind_stack_memo(void **frames, int max, const void *caller, void **slot,
                      void ***memo)
{
    /* One frame is the caller: no walk (a memoized walk would still cross
     * our own frames and search the memo, 8.6% of a traced sqlite3's
     * samples with depth=1). */
    if (max == 1) {
        frames[0] = (void *)caller;
        *memo = NULL;
        return 1;
    }
    struct fastunwind_memo *m =
        current == UNWIND_FAST ? thread_memo(slot) : NULL;
    int n = unwind_stack(frames, max, caller, m);
    *memo = fastunwind_memo_user(m);
    return n;
}

void unwind_after_fork_child(void)
{
    /* libunwind finds unwind tables with dl_iterate_phdr, which a fork
     * child must not call (modmap.h); fastunwind gives the same frames
     * through the lock-free _dl_find_object.  glibc's backtrace() (libgcc
     * 12, _dl_find_object too) and the frame-pointer walk take no loader
     * lock. */
    if (current == UNWIND_LIBUNWIND)
        current = UNWIND_FAST;
}

void unwind_forget_code(void)
{
    fastunwind_flush();
}

void unwind_warm_up(void **slot)
{
    dl_iterate_phdr(note_own_extent, (void *)&note_own_extent);
    void *frames[4];
    raw_unwind(frames, 4, current == UNWIND_FAST ? thread_memo(slot) : NULL);
}
