/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sigdefer.h - signals that arrive while a thread is inside the tracer
 * wait until it leaves (the recursion guard's guard_leave() releases
 * them).  A handler that ran inside the tracer and jumped out of it
 * (siglongjmp) would leave the guard set and our locks held; one that
 * allocated would go untraced.  sigtramp.c decides what is deferred; the
 * library's own handlers (a scan's stop signal) use sigdefer_if_inside().
 */
#ifndef MT_SIGDEFER_H
#define MT_SIGDEFER_H
#include <signal.h>

/* The number of signals noted for this thread (guard.h reads it in
 * guard_leave(): one load on the hot path). */
extern __thread int mt_signals_deferred
    __attribute__((tls_model("initial-exec")));

/* A fault raised by an instruction, or SIGABRT (abort() raises it again
 * with SIG_DFL right after): these cannot wait. */
int sigdefer_must_run_now(int sig, const siginfo_t *info);
/* Notes SIG (with INFO) for this thread.  From a signal handler. */
void sigdefer_note(int sig, const siginfo_t *info);
/* When this thread is inside the tracer, notes SIG and returns 1: the
 * caller (a handler) returns, and runs again once the thread is out. */
int sigdefer_if_inside(int sig, const siginfo_t *info);
/* Sends the noted signals to this thread again, with their siginfo: they
 * are delivered as it returns to the program.  The guard is clear. */
void sigdefer_release(void);

#endif
