/* SPDX-License-Identifier: GPL-3.0-or-later */
/* forkgate.h - keeps fork() from happening while another thread is inside
 * the dynamic loader on our account.  glibc 2.36 does not reset the
 * loader's write lock in a fork child: a thread inside dl_iterate_phdr
 * (libunwind, our module map) or dlopen() at the moment of fork leaves it
 * locked, and the child, which unwinds on its first malloc, hangs.
 * Tracer work that may enter the loader, and dlclose(), run inside the
 * gate; the fork prepare handler closes it and waits until no other thread
 * is inside.  A thread already inside never waits, so it cannot block the
 * fork it is holding up.  (dlopen() itself is not gated: see control.c.)
 * GPL-3.0-or-later. */
#ifndef MT_FORKGATE_H
#define MT_FORKGATE_H

/* Registers for membarrier(2): at load, and at the start of collection
 * (only the first call does anything). */
void gate_init(void);
void gate_enter(void);
void gate_leave(void);
/* fork prepare: waits until every other thread is outside. */
void gate_close_for_fork(void);
/* fork parent and child. */
void gate_open_after_fork(void);

#endif
