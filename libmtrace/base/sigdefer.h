/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sigdefer.h - signals that arrive while a thread is inside the tracer
 * wait until it leaves (the recursion guard's guard_leave() releases
 * them).  A handler that ran inside the tracer and jumped out of it
 * (siglongjmp) would leave the guard set and our locks held; one that
 * allocated would go untraced.  sigtramp.c decides what is deferred.
 */
#ifndef MT_SIGDEFER_H
#define MT_SIGDEFER_H
#include <signal.h>

/* The number of signals noted for this thread (guard.h reads it in
 * guard_leave(): one load on the hot path). */
extern __thread int mt_signals_deferred
    __attribute__((tls_model("initial-exec")));

/* Signal deliveries to this thread, counted where their handlers run:
 * libmtrace's own (the stop signal of a scan, the report signal) and the
 * program's.  restart.c resumes a blocking call that failed with EINTR
 * when ours and none of the program's came meanwhile.  Only this thread
 * (in its handlers, which may nest) changes them. */
extern __thread unsigned mt_signals_ours
    __attribute__((tls_model("initial-exec")));
extern __thread unsigned mt_signals_program
    __attribute__((tls_model("initial-exec")));

static inline void sigdefer_count_ours(void)
{
    __atomic_fetch_add(&mt_signals_ours, 1, __ATOMIC_RELAXED);
}

static inline void sigdefer_count_program(void)
{
    __atomic_fetch_add(&mt_signals_program, 1, __ATOMIC_RELAXED);
}

/* The report signal's handler (report.c), which counts its deliveries
 * as ours: the trampoline does not count them as the program's. */
void sigdefer_set_own_handler(void (*handler)(int));
int sigdefer_is_own_handler(void (*handler)(int));

/* A fault raised by an instruction, or SIGABRT (abort() raises it again
 * with SIG_DFL right after): these cannot wait. */
int sigdefer_must_run_now(int sig, const siginfo_t *info);
/* Notes SIG (with INFO) for this thread.  From a signal handler. */
void sigdefer_note(int sig, const siginfo_t *info);
/* Sends the noted signals to this thread again, with their siginfo: they
 * are delivered as it returns to the program.  The guard is clear. */
void sigdefer_release(void);

#endif
