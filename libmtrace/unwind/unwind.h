/* SPDX-License-Identifier: GPL-3.0-or-later */
/* unwind.h - the one-function interface to the stack unwinder.
 */
#ifndef MT_UNWIND_H
#define MT_UNWIND_H
#include "base/config.h"

void unwind_select(enum unwinder which);
const char *unwind_name(void);
/* Fills FRAMES with up to MAX return addresses, innermost first, starting
 * at the frame whose address is CALLER (the return address into the code
 * that called the allocation function), so the tracer's own frames never
 * appear.  Returns the number of frames (at least 1: CALLER itself; with
 * MAX 1, CALLER alone, found without a walk).
 * And *MEMO: a word to keep with these frames (NULL when the unwinder
 * cannot keep one).  The same walk again finds the word as it was left: a
 * caller may store what it derived from the frames there.  When that word
 * is set, FRAMES may be left unfilled and UNWIND_KNOWN returned.
 * SLOT is a word the caller keeps for its thread (NULL: none), where the
 * thread's memo of recent walks is made on first use; the caller keeps it
 * with the thread's record (threads.h), reused after the thread. */
#define UNWIND_KNOWN (-1)
int unwind_stack_memo(void **frames, int max, const void *caller, void **slot,
                      void ***memo);
/* In a fork child: an unwinder that calls dl_iterate_phdr gives way to one
 * that does not (modmap.h); the child's log header names the one used. */
void unwind_after_fork_child(void);
/* After dlclose(): cached unwinding rules may describe unloaded code. */
void unwind_forget_code(void);
/* The first unwind loads and initialises the unwinder (libgcc_s for glibc's
 * backtrace, libunwind's caches), which allocates: done once at start-up
 * with the recursion guard set. */
void unwind_warm_up(void **slot);

#endif
