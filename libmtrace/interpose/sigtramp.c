/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sigtramp.c - see sigtramp.h. */
#define _GNU_SOURCE
#include "interpose/sigtramp.h"
#include "interpose/control.h"
#include "base/sigdefer.h"
#include "base/export.h"
#include "base/guard.h"
#include "base/real.h"
#include "log/tracelog.h"
#include "track/livemode.h"
#include "track/tracer.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's flag for glibc's own sa_restorer (not in <signal.h>):
 * queries report it, so ours do too. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* ---- the program's dispositions ------------------------------------------ */

/* What the program asked for, for each signal whose kernel handler is our
 * trampoline (WRAPPED).  Read by the trampoline, so lock-free: sigaction()
 * is async-signal-safe and may run in a handler. */
static struct {
    _Atomic uintptr_t handler; /* sa_handler / sa_sigaction, SIG_DFL     */
    atomic_int flags;          /* sa_flags as the program gave them       */
    atomic_int wrapped;        /* the kernel runs our trampoline for it  */
    atomic_int fatal_watch;    /* SIG_DFL kills: finish the log first    */
} actions[NSIG];

/* The process whose dispositions the table holds.  A vfork() child shares
 * our memory but has dispositions of its own (it may set SIG_DFL before
 * its exec): its changes must not reach the parent's table. */
static pid_t table_owner;

static void own_table_after_fork(void)
{
    table_owner = getpid();
}

__attribute__((constructor)) static void own_table(void)
{
    table_owner = getpid();
    pthread_atfork(NULL, NULL, own_table_after_fork);
}

static uintptr_t handler_of(const struct sigaction *a)
{
    return (a->sa_flags & SA_SIGINFO) ? (uintptr_t)a->sa_sigaction
                                      : (uintptr_t)a->sa_handler;
}

static int is_function(uintptr_t h)
{
    return h != (uintptr_t)SIG_DFL && h != (uintptr_t)SIG_IGN &&
           h != (uintptr_t)SIG_ERR;
}

static void trampoline(int sig, siginfo_t *info, void *uc);

/* The kernel's action for the program's ACT on SIG: ours when the program
 * gives a function, or SIG_DFL on a watched fatal signal. */
static int kernel_action(int sig, const struct sigaction *act,
                         struct sigaction *k)
{
    *k = *act;
    uintptr_t h = handler_of(act);
    if (is_function(h)) {
        k->sa_flags = (act->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
    } else if (h == (uintptr_t)SIG_DFL &&
               atomic_load(&actions[sig].fatal_watch)) {
        k->sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    } else {
        return 0;
    }
    k->sa_sigaction = trampoline;
    return 1;
}

/* Records ACT as the program's disposition of SIG and gives the kernel
 * what it needs; the program's previous one goes to OLD. */
static int set_disposition(int sig, const struct sigaction *act,
                           struct sigaction *old)
{
    struct sigaction k, kernel_old;
    uintptr_t prev_handler = atomic_load(&actions[sig].handler);
    int prev_flags = atomic_load(&actions[sig].flags);
    int prev_wrapped = atomic_load(&actions[sig].wrapped);
    if (act) {
        int wrapped = kernel_action(sig, act, &k);
        atomic_store(&actions[sig].handler, handler_of(act));
        atomic_store(&actions[sig].flags, act->sa_flags);
        atomic_store(&actions[sig].wrapped, wrapped);
    }
    if (real_sigaction(sig, act ? &k : NULL, &kernel_old) != 0) {
        atomic_store(&actions[sig].handler, prev_handler);
        atomic_store(&actions[sig].flags, prev_flags);
        atomic_store(&actions[sig].wrapped, prev_wrapped);
        return -1;
    }
    if (old) {
        *old = kernel_old;
        if (prev_wrapped) { /* the program's own, not our trampoline */
            old->sa_flags = prev_flags | (kernel_old.sa_flags & SA_RESTORER);
            if (prev_flags & SA_SIGINFO)
                old->sa_sigaction = (void (*)(int, siginfo_t *,
                                              void *))prev_handler;
            else
                old->sa_handler = (void (*)(int))prev_handler;
        }
    }
    return 0;
}

static int wrappable(int sig)
{
    return sig > 0 && sig < NSIG && sig != SIGKILL && sig != SIGSTOP;
}

int sigtramp_sigaction(int sig, const struct sigaction *act,
                       struct sigaction *old)
{
    if (!wrappable(sig) || getpid() != table_owner)
        return real_sigaction(sig, act, old);
    return set_disposition(sig, act, old);
}

MT_EXPORT int sigaction(int sig, const struct sigaction *act,
                        struct sigaction *old)
{
    return sigtramp_sigaction(sig, act, old);
}

/* signal(), sigset() and the like: glibc's own, whose result (flags,
 * mask: siginterrupt() may have changed them) is then taken over. */
static sighandler_t adopt(int sig, sighandler_t (*real)(int, sighandler_t),
                          sighandler_t handler)
{
    struct sigaction before, now;
    if (real == NULL || !wrappable(sig) || getpid() != table_owner)
        return real ? real(sig, handler) : SIG_ERR;
    set_disposition(sig, NULL, &before);
    if (real(sig, handler) == SIG_ERR)
        return SIG_ERR;
    /* Unless the action is still ours (sigset(SIG_HOLD) changes none). */
    if (real_sigaction(sig, NULL, &now) == 0 &&
        handler_of(&now) != (uintptr_t)trampoline)
        set_disposition(sig, &now, NULL);
    /* sa_handler and sa_sigaction share their storage. */
    return before.sa_handler;
}

#define ADOPTING_WRAPPER(name)                                                 \
    MT_EXPORT sighandler_t name(int sig, sighandler_t handler)                 \
    {                                                                          \
        static sighandler_t (*real)(int, sighandler_t);                        \
        if (real == NULL)                                                      \
            real = (sighandler_t(*)(int, sighandler_t))real_next_symbol(       \
                #name);                                                        \
        return adopt(sig, real, handler);                                      \
    }
ADOPTING_WRAPPER(signal)
sighandler_t bsd_signal(int, sighandler_t); /* <signal.h> hides it under _GNU_SOURCE */
ADOPTING_WRAPPER(bsd_signal)
ADOPTING_WRAPPER(sysv_signal)
ADOPTING_WRAPPER(__sysv_signal)
ADOPTING_WRAPPER(sigset)

/* ---- running the program's disposition ------------------------------------ */

/* SIG meets its default action: when that ends the process, the
 * verdicts and the log's end first, as valgrind gives its leak check at
 * such an end (a server stopped by SIGTERM or SIGINT in CI); then give the
 * signal its default action back and raise it again, so the kernel does
 * exactly what it would have done.  The thread's registers and stack are
 * those of the context the kernel saved at UC: our own frames below it
 * are not the program's. */
static void die_by_default(int sig, const siginfo_t *info, const void *uc)
{
    if (atomic_load(&actions[sig].fatal_watch) && tracer_started()) {
        /* Not when the signal came inside the tracer, whose locks this
         * thread may hold. */
        if (!guard_is_set() && tracer_active()) {
            control_verdicts_at_death(uc);
            livemode_write(); /* a live log's blocks the scan did not write */
        }
        tracelog_end_by_signal(sig, guard_is_set());
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    atomic_store(&actions[sig].wrapped, 0);
    atomic_store(&actions[sig].fatal_watch, 0);
    real_sigaction(sig, &dfl, NULL);
    /* A fault happens again when the instruction runs again; anything
     * else is raised again (blocked until this handler returns). */
    if (!sigdefer_must_run_now(sig, info) || sig == SIGABRT)
        syscall(SYS_tgkill, getpid(), gettid(), sig);
}

static void trampoline(int sig, siginfo_t *info, void *uc)
{
    uintptr_t h = atomic_load(&actions[sig].handler);
    int flags = atomic_load(&actions[sig].flags);
    /* Before the handler, which may jump away: a blocking call this
     * delivery interrupts must fail with EINTR, as untraced (restart.c),
     * unless the handler is libmtrace's (the report signal's, which
     * counts itself), or the program ignores the signal (untraced, it
     * would not interrupt). */
    if (h == (uintptr_t)SIG_IGN)
        sigdefer_count_ours();
    else if (!sigdefer_is_own_handler((void (*)(int))h))
        sigdefer_count_program();
    if (h == (uintptr_t)SIG_IGN) /* changed as it arrived */
        return;
    if (!is_function(h)) {
        die_by_default(sig, info, uc);
        return;
    }
    if (guard_is_set() && !sigdefer_must_run_now(sig, info)) {
        sigdefer_note(sig, info);
        return;
    }
    if (flags & SA_RESETHAND) {
        /* What the kernel would have done: the handler, not the flags,
         * goes back to the default. */
        struct sigaction dfl;
        if (real_sigaction(sig, NULL, &dfl) == 0) {
            dfl.sa_handler = SIG_DFL;
            dfl.sa_flags = flags & ~SA_SIGINFO;
            set_disposition(sig, &dfl, NULL);
        }
    }
    if (flags & SA_SIGINFO)
        ((void (*)(int, siginfo_t *, void *))h)(sig, info, uc);
    else
        ((void (*)(int))h)(sig);
}

/* Signals whose default action ends the process (with or without a core
 * dump). */
static const int fatal_signals[] = {
    SIGHUP,  SIGINT,    SIGQUIT, SIGILL,  SIGTRAP, SIGABRT, SIGBUS,    SIGFPE,
    SIGUSR1, SIGSEGV,   SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU,
    SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,
};

void sigtramp_watch_fatal(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0];
         i++) {
        int sig = fatal_signals[i];
        struct sigaction now;
        atomic_store(&actions[sig].fatal_watch, 1);
        if (set_disposition(sig, NULL, &now) == 0 &&
            now.sa_handler == SIG_DFL && !(now.sa_flags & SA_SIGINFO))
            set_disposition(sig, &now, NULL);
    }
}
