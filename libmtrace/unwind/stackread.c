/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stackread.c - see stackread.h. */
#include "unwind/stackread.h"
#include <errno.h>
#include <sys/syscall.h>

/* A single frame larger than this is taken for a corrupt stack. */
#define MAX_STACK_JUMP (8ul << 20)

__thread uint64_t stackread_known __attribute__((tls_model("initial-exec")));

/* Given an invalid "how", rt_sigprocmask copies the 8-byte set from PAGE
 * (EFAULT if it cannot) and then refuses without changing anything.  The
 * raw syscall leaves errno alone. */
static bool page_readable(uintptr_t page)
{
    register long sigsetsize __asm__("r10") = sizeof(uint64_t);
    long ret = SYS_rt_sigprocmask;
    __asm__ volatile("syscall"
                     : "+a"(ret)
                     : "D"(~0L), "S"(page), "d"(0L), "r"(sigsetsize)
                     : "rcx", "r11", "memory");
    /* EINVAL is the answer after a successful copy; anything else (EFAULT,
     * or a sandbox refusing the call) leaves the page unread. */
    return ret == -EINVAL;
}

bool bounds_extend(struct bounds *b, uintptr_t addr)
{
    uintptr_t last = (addr + 7) & ~(STACK_PAGE - 1);
    if (addr < b->lo || addr + 7 < addr || last - b->hi >= MAX_STACK_JUMP)
        return false;
    while (b->hi <= last) {
        if (b->hi == b->known_lo) {
            b->hi = b->known_hi;
            continue;
        }
        if (!page_readable(b->hi))
            return false;
        b->hi += STACK_PAGE;
    }
    return true;
}
