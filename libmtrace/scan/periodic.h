/* SPDX-License-Identifier: GPL-3.0-or-later */
/* periodic.h - periodic scans (MEMLEAK_CONFIG=scan_every=SECONDS): a
 * thread of libmtrace's wakes every SECONDS and runs the reachability
 * scan (scan.h) with trigger "periodic", so the log holds a series of
 * verdicts over the run and mtrace-check can tell the stacks whose still
 * reachable memory keeps growing (doc/format.md, doc/report.md).
 *
 * Why a thread and a clock, not a timer signal: a signal of ours would
 * end the program's sleeps and waits early unless every one were
 * resumed; the thread sleeps on an absolute CLOCK_MONOTONIC deadline by
 * a raw system call with every signal blocked, touches nothing of the
 * program's, and costs the program only the scan itself (its threads
 * are stopped by the scan's own signal, which restart.c already makes
 * invisible to their blocking calls).  The thread is libmtrace's own
 * (scan_own_thread_started): never stopped, its stack no root.  A fork
 * child has no such thread and makes no periodic scans.  GPL-3.0-or-later.
 */
#ifndef MT_PERIODIC_H
#define MT_PERIODIC_H

/* Starts the thread when scans every US microseconds were asked for
 * (0: none).  Called once, when collection starts, with the recursion
 * guard set and no lock of ours held. */
void periodic_start(long us);
/* No periodic scan runs from the return until periodic_resume (one
 * running meanwhile is waited for): an exec, which ends the log, and the
 * process's exit, whose own scan is the last.  Nests. */
void periodic_pause(void);
void periodic_resume(void);

#endif
