/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sigdefer.c - see sigdefer.h. */
#define _GNU_SOURCE
#include "base/sigdefer.h"
#include "base/guard.h"
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEFER_MAX 8
__thread int mt_signals_deferred __attribute__((tls_model("initial-exec")));
__thread unsigned mt_signals_ours __attribute__((tls_model("initial-exec")));
__thread unsigned mt_signals_program
    __attribute__((tls_model("initial-exec")));
static void (*_Atomic own_handler)(int);

void sigdefer_set_own_handler(void (*handler)(int))
{
    atomic_store(&own_handler, handler);
}

int sigdefer_is_own_handler(void (*handler)(int))
{
    return handler != NULL && handler == atomic_load(&own_handler);
}
static __thread struct {
    int sig[DEFER_MAX];
    siginfo_t info[DEFER_MAX];
} deferred __attribute__((tls_model("initial-exec")));

/* A fault raised by an instruction, or SIGABRT (abort() raises it again
 * with SIG_DFL right after): these cannot wait. */
int sigdefer_must_run_now(int sig, const siginfo_t *info)
{
    if (sig == SIGABRT)
        return 1;
    int fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
                sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS;
    return fault && info && info->si_code > 0;
}

void sigdefer_note(int sig, const siginfo_t *info)
{
    int n = mt_signals_deferred;
    for (int i = 0; i < n; i++)
        if (deferred.sig[i] == sig && sig < SIGRTMIN)
            return; /* a standard signal is pending once, as in the kernel */
    if (n == DEFER_MAX)
        return; /* more than the kernel would queue for a handler anyway */
    deferred.sig[n] = sig;
    deferred.info[n] = *info;
    deferred.info[n].si_signo = sig;
    atomic_signal_fence(memory_order_seq_cst);
    mt_signals_deferred = n + 1;
}

void sigdefer_release(void)
{
    int saved = errno, n = mt_signals_deferred;
    int sigs[DEFER_MAX];
    siginfo_t infos[DEFER_MAX];
    /* A handler run by the first signal may allocate, be interrupted
     * inside the tracer and note more: work on a copy. */
    memcpy(sigs, deferred.sig, (size_t)n * sizeof sigs[0]);
    memcpy(infos, deferred.info, (size_t)n * sizeof infos[0]);
    mt_signals_deferred = 0;
    pid_t pid = getpid(), tid = gettid();
    for (int i = 0; i < n; i++)
        /* Should the kernel refuse to queue it (EAGAIN: the real-time
         * queue is full), the signal goes again without its siginfo
         * rather than not at all. */
        if (syscall(SYS_rt_tgsigqueueinfo, pid, tid, sigs[i], &infos[i]) != 0)
            syscall(SYS_tgkill, pid, tid, sigs[i]);
    errno = saved;
}
