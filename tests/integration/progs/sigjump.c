/* SPDX-License-Identifier: GPL-3.0-or-later
 * sigjump.c - a 1 ms periodic SIGALRM whose handler siglongjmp()s back to
 * the top of a malloc(100)/free loop, JUMPS times (as interpreters, JITs
 * and test frameworks jump out of handlers); then the timer stops, 1000
 * malloc(12345)/free pairs, one 54321-byte leak, and muntrace().  Every
 * event after the jumps must be logged and muntrace() must not hang.
 * A jump between a malloc(100) and its free leaks that block, untraced as
 * natively.  An alarm that comes after the last jump (before the timer
 * is stopped, as it can on a loaded machine) is ignored, so N is JUMPS;
 * the timer starts only once the jump target is set.
 * Prints "jumps N".  Usage: sigjump [JUMPS] */
#include <mcheck.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util.h"

static sigjmp_buf top;
static volatile sig_atomic_t jumps, want;

static void on_alarm(int sig)
{
    (void)sig;
    if (jumps >= want)
        return;
    jumps++;
    siglongjmp(top, 1);
}

int main(int argc, char **argv)
{
    struct itimerval on = { { 0, 1000 }, { 0, 1000 } }, off;
    struct sigaction sa;

    want = argc > 1 ? atoi(argv[1]) : 100;
    memset(&off, 0, sizeof off);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    mtrace();
    /* The jump target first, then the timer: on a loaded machine the
     * first alarm can come before the next line runs, and a jump to a
     * jmp_buf not yet set is a SIGSEGV (exit 139, seen in CI). */
    if (sigsetjmp(top, 1) == 0)
        setitimer(ITIMER_REAL, &on, NULL);
    while (jumps < want)
        free(used(malloc(100)));
    setitimer(ITIMER_REAL, &off, NULL);
    for (int i = 0; i < 1000; i++)
        free(used(malloc(12345)));
    escape(malloc(54321));
    muntrace();
    say("jumps %d\n", (int)jumps);
    return 0;
}
