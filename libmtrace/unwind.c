/* unwind.c - unwinding behind unwind_stack().  libunwind's unw_backtrace
 * is the default: with its per-thread cache it costs ~0.1 us per stack here,
 * where glibc's backtrace() (libgcc's DWARF unwinder) costs ~3.5 us
 * (REFERENCE.md section 5).  Both are correct on -O2 code without frame
 * pointers.  GPL-3.0-or-later. */
#define UNW_LOCAL_ONLY
#include "unwind.h"
#include "../include/mtrace-format.h"
#include <execinfo.h>
#include <libunwind.h>
#include <string.h>

/* Frames of the tracer itself above CALLER: at most this many are looked
 * through to find CALLER. */
#define OWN_FRAMES_MAX 8

static enum unwinder current = UNWIND_LIBUNWIND;

void unwind_select(enum unwinder which)
{
    current = which;
    if (which == UNWIND_LIBUNWIND)
        unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

const char *unwind_name(void)
{
    return current == UNWIND_GLIBC ? "glibc" : "libunwind";
}

static int raw_unwind(void **frames, int max)
{
    if (current == UNWIND_GLIBC)
        return backtrace(frames, max);
    return unw_backtrace(frames, max);
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

void unwind_warm_up(void)
{
    void *frames[4];
    raw_unwind(frames, 4);
}
