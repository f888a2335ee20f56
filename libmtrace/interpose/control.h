/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control.h - what control.c (mtrace(), muntrace(), start-up, the ends of
 * a process) offers the other wrappers. */
#ifndef MT_CONTROL_H
#define MT_CONTROL_H

/* A signal whose default action ends the process is about to (sigtramp.c):
 * the verdicts of that end, as at exit, this thread's stack and registers
 * taken from UCONTEXT, the context the kernel saved when the signal
 * interrupted it.  Nothing when the signal came inside the tracer. */
void control_verdicts_at_death(const void *ucontext);

#endif
