/* fastunwind.h - a fast x86-64 stack unwinder driven by the DWARF call
 * frame information in .eh_frame, with a lock-free per-address rule cache.
 * It never allocates, never locks and never follows a pointer it has not
 * checked, so it can run inside malloc and in signal handlers.
 * GPL-3.0-or-later. */
#ifndef MT_FASTUNWIND_H
#define MT_FASTUNWIND_H

/* Fills FRAMES with up to MAX return addresses, innermost first; FRAMES[0]
 * is the return address into the function that called fastunwind_backtrace.
 * Returns the number stored.  The same contract and the same addresses as
 * libunwind's unw_backtrace() called from the same place, except that it
 * stops early (returning the frames so far) on code it cannot describe
 * with its compact rules: no unwind information, a CFA that is neither
 * RSP nor RBP plus an offset, or a stack it cannot safely read. */
int fastunwind_backtrace(void **frames, int max);

/* Forgets every cached rule.  Call after a dlclose() that may unload code
 * whose addresses a later dlopen() could reuse. */
void fastunwind_flush(void);

/* Unwinds a few frames of its own and checks them against
 * __builtin_return_address: 0 if the unwinder works here, -1 if not. */
int fastunwind_selftest(void);

#endif
