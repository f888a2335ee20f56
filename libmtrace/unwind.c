/* unwind.c - unwinding behind unwind_stack().  The default is our own
 * .eh_frame unwinder (fastunwind.c): ~47 ns for 14 frames here, against
 * ~120 ns for libunwind's unw_backtrace and ~3.5 us for glibc's backtrace()
 * (libgcc's DWARF unwinder, REFERENCE.md section 5); all three are correct
 * on -O2 code without frame pointers.  libunwind also steals descriptors:
 * its memory validation keeps a pipe, and when a program closes every
 * descriptor it closes "its" pipe again, which by then is the program's
 * files (seen with a daemon-style program).  An opt-in frame-pointer walk is the cheapest of all, for
 * programs built with -fno-omit-frame-pointer.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "unwind.h"
#include "../include/mtrace-format.h"
#include "fastunwind.h"
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <libunwind.h>
#include <string.h>

/* Frames of the tracer itself above CALLER: at most this many are looked
 * through to find CALLER. */
#define OWN_FRAMES_MAX 8

static enum unwinder current = UNWIND_FAST;

void unwind_select(enum unwinder which)
{
    current = which;
    if (which == UNWIND_LIBUNWIND)
        unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

const char *unwind_name(void)
{
    static const char *const names[] = { "libunwind", "glibc", "fp", "fast" };
    return names[current];
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

static int raw_unwind(void **frames, int max)
{
    switch (current) {
    case UNWIND_GLIBC:
        return backtrace(frames, max);
    case UNWIND_FP:
        return frame_pointer_walk(frames, max);
    case UNWIND_FAST:
        return fastunwind_backtrace(frames, max);
    default:
        return unw_backtrace(frames, max);
    }
}

int unwind_stack(void **frames, int max, const void *caller)
{
    void *raw[MTF_MAX_DEPTH + OWN_FRAMES_MAX];
    int n = raw_unwind(raw, max + OWN_FRAMES_MAX);
    int start = -1;
    for (int i = 0; i < n && i < OWN_FRAMES_MAX; i++)
        if (raw[i] == caller) {
            start = i;
            break;
        }
    if (start < 0) {
        /* The unwinder lost its way inside our frames: keep the caller. */
        frames[0] = (void *)caller;
        return 1;
    }
    n -= start;
    if (n > max)
        n = max;
    memcpy(frames, raw + start, (size_t)n * sizeof *frames);
    return n;
}

void unwind_forget_code(void)
{
    fastunwind_flush();
}

void unwind_warm_up(void)
{
    void *frames[4];
    raw_unwind(frames, 4);
}
