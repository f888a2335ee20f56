/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fastunwind.h - a fast x86-64 stack unwinder driven by the DWARF call
 * frame information in .eh_frame, with a lock-free per-address rule cache.
 * It never allocates, never locks and never follows a pointer it has not
 * checked, so it can run inside malloc and in signal handlers.
 */
#ifndef MT_FASTUNWIND_H
#define MT_FASTUNWIND_H
#include <stddef.h>
#include <stdint.h>

/* Fills FRAMES with up to MAX return addresses, innermost first; FRAMES[0]
 * is the return address into the function that called fastunwind_backtrace.
 * Returns the number stored.  The same contract and the same addresses as
 * libunwind's unw_backtrace() called from the same place, except that it
 * stops early (returning the frames so far) on code it cannot describe
 * with its compact rules: no unwind information, a CFA that is neither
 * RSP nor RBP plus an offset, or a stack it cannot safely read. */
int fastunwind_backtrace(void **frames, int max);

/* The same walk, also giving SPS[k], the stack pointer in the frame of
 * FRAMES[k] once the call it returns from is over (k >= 1; SPS[0] is not
 * set).  Not for the hot path: at exit, to find where a frame lies. */
int fastunwind_backtrace_sps(void **frames, uintptr_t *sps, int max);

/* Where the function containing code address PC starts (its FDE's first
 * address): 1 and *START, or 0 when PC has no unwind information.  Takes
 * no lock (_dl_find_object). */
int fastunwind_function_start(uintptr_t pc, uintptr_t *start);

/* The same, remembering recent walks in MEMO (per thread, of
 * fastunwind_memo_size(DEPTH) bytes, zeroed, then given to
 * fastunwind_memo_init(); NULL: none): a walk that starts where a
 * remembered one did is checked against the return addresses it read
 * instead of being walked again.  Walks of more than DEPTH frames are
 * not memoized. */
struct fastunwind_memo;
int fastunwind_backtrace_memo(void **frames, int max,
                              struct fastunwind_memo *memo);
/* What fastunwind_backtrace_memo returns instead of a frame count when it
 * replays a walk whose user word (below) is set: FRAMES is left as it was,
 * the caller keeps what it derived from them in that word. */
#define FASTUNWIND_KNOWN (-1)
size_t fastunwind_memo_size(int depth);
void fastunwind_memo_init(struct fastunwind_memo *m, int depth);
/* A word the caller may keep with the walk just made (the same frames
 * every time it is replayed; NULL after a new walk), or NULL when that walk
 * was not memoized.  Valid until the next walk with M. */
void **fastunwind_memo_user(struct fastunwind_memo *m);

/* Forgets every cached rule.  Call after a dlclose() that may unload code
 * whose addresses a later dlopen() could reuse. */
void fastunwind_flush(void);

/* Unwinds a few frames of its own and checks them against
 * __builtin_return_address: 0 if the unwinder works here, -1 if not. */
int fastunwind_selftest(void);

#endif
