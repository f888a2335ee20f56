/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stackread.h - reading another frame's stack words without ever
 * faulting, for an unwinder that runs inside malloc and in signal
 * handlers.
 *
 * A walk reads only inside [lo, hi), pages known to be readable.  Going
 * above hi, each new page is first checked with a system call that copies
 * from it (stackread.c).  The pages found readable are remembered per
 * thread, so later walks skip the checks. */
#ifndef MT_STACKREAD_H
#define MT_STACKREAD_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define STACK_PAGE 4096ul
/* The stack below a frame's RSP that signal delivery leaves alone. */
#define RED_ZONE 128

struct bounds {
    uintptr_t lo, hi;             /* this walk's readable pages */
    uintptr_t known_lo, known_hi; /* this thread's, from earlier walks */
};

/* The pages this thread's earlier walks found readable, as one word (first
 * page number << KNOWN_COUNT_BITS | page count) so that a signal handler's
 * walk never sees half an update. */
extern __thread uint64_t stackread_known
    __attribute__((tls_model("initial-exec")));
#define KNOWN_COUNT_BITS 28

/* Starts a walk at SP: the page holding SP is readable (this thread's
 * stack is in use there), and so are the known pages when SP is in them. */
static inline void bounds_start(struct bounds *b, uintptr_t sp)
{
    uint64_t k = stackread_known;
    b->known_lo = (uintptr_t)(k >> KNOWN_COUNT_BITS) * STACK_PAGE;
    b->known_hi = b->known_lo +
                  (uintptr_t)(k & ((1u << KNOWN_COUNT_BITS) - 1)) * STACK_PAGE;
    b->lo = sp & ~(STACK_PAGE - 1);
    b->hi = b->lo + STACK_PAGE;
    if (sp >= b->known_lo && sp < b->known_hi)
        b->hi = b->known_hi;
}

/* After a signal frame the interrupted stack may be another one, whose
 * red zone may hold the interrupted function's saved RBP: nothing there is
 * known readable yet. */
static inline void bounds_restart(struct bounds *b, uintptr_t sp)
{
    b->lo = b->hi = (sp - RED_ZONE) & ~(STACK_PAGE - 1);
    b->known_lo = b->known_hi = 0;
}

/* Remembers this walk's pages for the next one, joined with the known
 * ones when they touch. */
static inline void bounds_keep(const struct bounds *b)
{
    uintptr_t lo = b->lo;
    if (b->known_lo < lo && b->known_hi >= lo)
        lo = b->known_lo;
    uintptr_t count = (b->hi - lo) / STACK_PAGE;
    if (lo / STACK_PAGE >= 1ull << (64 - KNOWN_COUNT_BITS) ||
        count >= 1u << KNOWN_COUNT_BITS)
        return;
    stackread_known = (uint64_t)(lo / STACK_PAGE) << KNOWN_COUNT_BITS | count;
}

/* Makes [lo, hi) reach ADDR + 8, checking each new page on the way (or
 * skipping over the pages known from earlier walks); false if ADDR is
 * below the walk's start, too far above, or a page is unreadable. */
bool bounds_extend(struct bounds *b, uintptr_t addr);

/* Whether the 8 bytes at ADDR may be read: a compare when they lie in the
 * pages already checked. */
static inline bool stack_readable(struct bounds *b, uintptr_t addr)
{
    if (__builtin_expect(addr >= b->lo && addr <= b->hi - 8, 1))
        return true;
    return bounds_extend(b, addr);
}

/* The word at ADDR, which stack_readable() allowed.  Not checked by
 * AddressSanitizer: the memo reads words where another walk found its
 * frames, which in this one may lie in an instrumented frame's redzone
 * (readable memory all the same). */
__attribute__((no_sanitize_address)) static inline uintptr_t stack_load(
    uintptr_t addr)
{
    uintptr_t v;
    memcpy(&v, (const void *)addr, sizeof v);
    return v;
}

#endif
