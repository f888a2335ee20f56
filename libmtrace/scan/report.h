/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.h - reports from a running process: what is live, what grew since
 * the previous report, and which stacks and frames hold it.  The format is
 * doc/report.md. */
#ifndef MT_REPORT_H
#define MT_REPORT_H
#include <signal.h>

/* Notes the start of collection (the zero of "uptime" and intervals). */
void report_start_clock(void);
/* Writes one report.  TRIGGER says what asked ("mtrace", "muntrace",
 * "exit", "signal", "api"), LABEL is the API caller's text or NULL.
 * Returns 0, or -1 when the destination could not be written.
 * Called with the recursion guard set and no tracer lock held. */
int report_write(const char *trigger, const char *label);
/* The reachability scan alone, its verdicts into the log (exit without
 * mtraceinit): same conditions as report_write.  Returns 0 when it ran. */
int report_verdicts(const char *trigger);
/* report_verdicts, if GO() says yes once the report lock is held (the
 * periodic scans, periodic.h). */
int report_verdicts_if(int (*go)(void), const char *trigger);
/* The report lock alone: no report or scan runs between the two calls
 * (fork, periodic_pause).  report_let_go in a fork child too. */
void report_hold(void);
void report_let_go(void);
/* Reports on signal SIG: the handler only posts a semaphore; a thread of
 * ours writes the report, so it comes even while the program is idle.
 * SET_ACTION installs the handler: the interposition layer's sigaction
 * (sigtramp.h), which defers the signal while the thread is inside the
 * tracer, as it does the program's handlers. */
void report_watch_signal(int sig,
                         int (*set_action)(int sig, const struct sigaction *act,
                                           struct sigaction *old));
/* Before the process exits: writes the reports the signal asked for that
 * are not written yet, and waits for the one the reporter thread is
 * writing.  Same conditions as report_write. */
void report_write_asked(void);
/* Live bytes and blocks now, summed over the stacks. */
void report_live(long *bytes, long *blocks);

#endif
