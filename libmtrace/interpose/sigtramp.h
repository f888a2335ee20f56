/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sigtramp.h - the program's signal handlers never run inside the tracer,
 * and a signal that kills the process still leaves a finished log.
 *
 * A handler that interrupts the tracer and jumps out of it (siglongjmp, as
 * interpreters, JITs and test frameworks do) would leave the recursion
 * guard set and our locks held: every later event of the thread would go
 * unlogged and the next hand-over of the log would hang.  So libmtrace
 * wraps sigaction() and its relatives: the kernel runs our trampoline,
 * which calls the program's handler at once when the thread is outside
 * the tracer, and otherwise defers the signal (sigdefer.h) until the
 * thread is back in the program.  Faults (SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGTRAP, SIGSYS raised by an instruction) and SIGABRT are
 * never deferred: they cannot wait.
 *
 * While collecting, signals whose default action ends the process and that
 * the program leaves at SIG_DFL get the trampoline too: it writes the
 * verdicts of that end (as valgrind gives its leak check then), writes
 * the log out and ends it with "#e signal sig=N", restores SIG_DFL and
 * raises the signal again, so the process dies as it would have (core
 * dump included).
 * The program sees its own dispositions in every query.
 * GPL-3.0-or-later. */
#ifndef MT_SIGTRAMP_H
#define MT_SIGTRAMP_H
#include <signal.h>

/* At the start of collection: the fatal signals left at SIG_DFL get the
 * trampoline, so a death by signal still finishes the log. */
void sigtramp_watch_fatal(void);
/* The exported sigaction(), for the library's own handlers that must be
 * deferred as the program's are (report.c's): internal code never calls
 * an exported name. */
int sigtramp_sigaction(int sig, const struct sigaction *act,
                       struct sigaction *old);

#endif
