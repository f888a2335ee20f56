/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lastframe.c - where the program's live stack ends when the process ends.
 *
 * At exit the scan reads the exiting thread's stack for pointers.  Only
 * the frames that are still live count: exit()'s caller and up.  When
 * main() returns, glibc's __libc_start_call_main calls exit(); when the
 * last thread returns, start_thread does.  Below exit()'s frame lie
 * frames that returned (main's helpers, main itself, a thread's function)
 * and the exit path's own (glibc's handler loop, the atexit handlers,
 * libmtrace's exit handler): their unused slots hold stale words of
 * earlier calls at the same depth, and a leak whose last copy sits there
 * would pass for still reachable.  LeakSanitizer takes the same
 * boundary, the stack pointer at exit()'s entry.
 *
 * glibc calls exit() internally (not through the PLT), so no wrapper
 * would see those calls: the exit handler finds exit()'s frame instead,
 * walking its own stack with the unwinder and recognising the frame
 * whose function starts where libc's exit() does (from its FDE).  The
 * same for quick_exit(); _exit() and _Exit() are libmtrace's own
 * wrappers, which note their frame (SCAN_EXIT_POINT, scan.h).
 */
#define _GNU_SOURCE
#include "unwind/lastframe.h"
#include "unwind/fastunwind.h"
#include "base/real.h"
#include <stddef.h>

static uintptr_t exit_fn, quick_exit_fn;

void lastframe_init(void)
{
    if (exit_fn == 0)
        exit_fn = (uintptr_t)real_next_symbol("exit");
    if (quick_exit_fn == 0)
        quick_exit_fn = (uintptr_t)real_next_symbol("quick_exit");
}

#define MAX_EXIT_FRAMES 64

uintptr_t lastframe_exit_sp(int quick)
{
    uintptr_t fn = quick ? quick_exit_fn : exit_fn;
    void *frames[MAX_EXIT_FRAMES];
    uintptr_t sps[MAX_EXIT_FRAMES];
    if (fn == 0)
        return 0;
    int n = fastunwind_backtrace_sps(frames, sps, MAX_EXIT_FRAMES);
    for (int k = 1; k < n; k++) {
        uintptr_t start;
        /* A return address: the call ends one byte before it. */
        if (fastunwind_function_start((uintptr_t)frames[k] - 1, &start) &&
            start == fn)
            return sps[k];
    }
    return 0;
}
