/* SPDX-License-Identifier: GPL-3.0-or-later
 * sigview.c - what a program sees of its own signal dispositions, and how
 * its handlers run: the same traced as untraced (libmtrace wraps
 * sigaction() and signal() to keep handlers out of the tracer).  Prints
 * one line per check; the test compares traced output with untraced. */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

static volatile sig_atomic_t got_usr1, code_usr1, got_hup, got_usr2;

static void on_usr1(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    got_usr1 = sig;
    code_usr1 = info->si_code;
    free(used(malloc(33))); /* a handler may allocate */
}

static void on_hup(int sig)
{
    (void)sig;
    got_hup++;
}

static void on_usr2(int sig)
{
    (void)sig;
    got_usr2++;
}

static void show(const char *what, int sig, void *expected)
{
    struct sigaction now;
    sigaction(sig, NULL, &now);
    void *h = (now.sa_flags & SA_SIGINFO) ? (void *)now.sa_sigaction
                                          : (void *)now.sa_handler;
    say("%s: handler %s, siginfo %d, restart %d, resethand %d, mask-usr2 %d\n",
        what,
        h == expected          ? "as set"
        : h == (void *)SIG_DFL ? "SIG_DFL"
        : h == (void *)SIG_IGN ? "SIG_IGN"
                               : "OTHER",
        !!(now.sa_flags & SA_SIGINFO), !!(now.sa_flags & SA_RESTART),
        !!(now.sa_flags & SA_RESETHAND), sigismember(&now.sa_mask, SIGUSR2));
}

int main(void)
{
    struct sigaction sa;

    mtrace();
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_usr1;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGUSR1, &sa, NULL);
    show("usr1", SIGUSR1, (void *)on_usr1);
    raise(SIGUSR1);
    say("usr1 ran: sig %d, SI_TKILL %d\n", (int)got_usr1,
        code_usr1 == SI_TKILL);

    say("signal returned SIG_DFL: %d\n", signal(SIGUSR2, on_usr2) == SIG_DFL);
    show("usr2", SIGUSR2, (void *)on_usr2);
    raise(SIGUSR2);
    say("signal returned on_usr2: %d\n", signal(SIGUSR2, SIG_IGN) == on_usr2);
    show("usr2 ignored", SIGUSR2, NULL);
    raise(SIGUSR2);
    say("usr2 ran %d time(s)\n", (int)got_usr2);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hup;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
    show("hup", SIGHUP, (void *)on_hup);
    raise(SIGHUP);
    show("hup after one", SIGHUP, (void *)on_hup);
    say("hup ran %d time(s)\n", (int)got_hup);

    show("term (never set)", SIGTERM, NULL);
    show("segv (never set)", SIGSEGV, NULL);
    struct sigaction old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, &old);
    say("int was SIG_DFL: %d\n", old.sa_handler == SIG_DFL);

    /* A vfork() child that resets a signal before its exec (as old
     * system() implementations do) changes nothing in the parent. */
    got_usr1 = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        signal(SIGUSR1, SIG_DFL);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    raise(SIGUSR1);
    say("usr1 after a vfork child reset it: ran %d\n", got_usr1 == SIGUSR1);
    show("usr1 after vfork", SIGUSR1, (void *)on_usr1);
    muntrace();
    return 0;
}
