/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lastframe.h - where the program's live stack ends when the process ends
 * (see lastframe.c). */
#ifndef MT_LASTFRAME_H
#define MT_LASTFRAME_H
#include <stdint.h>

/* When the library loads (the loader is asked where libc's exit() and
 * quick_exit() are; not in a fork child). */
void lastframe_init(void);

/* Called from an exit handler: the stack pointer in the frame of libc's
 * exit() (QUICK: quick_exit()) on this thread's stack, once the call it
 * made is over: the caller's live frames lie above it.  0 when no such
 * frame is found. */
uintptr_t lastframe_exit_sp(int quick);

#endif
