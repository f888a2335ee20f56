/* SPDX-License-Identifier: GPL-3.0-or-later
 * writefail.c - lots of allocations while the log cannot be written (or is
 * written through a pipe under a stream of signals).  The program's own
 * output and exit status (3) must not change.  With "signals", SIGALRM
 * without SA_RESTART fires every 200 us once tracing has started, so
 * write(2) sees EINTR and partial writes; with "early-signals" it fires
 * from before mtrace(), so opening the log (a FIFO) is interrupted too.
 * Known leaks: 17, 34.  Usage: writefail [signals|early-signals] */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util.h"

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
}

static void start_ticking(void)
{
    struct sigaction sa;
    struct itimerval it = { { 0, 200 }, { 0, 200 } };

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_ticking(void)
{
    struct itimerval off = { { 0, 0 }, { 0, 0 } };

    setitimer(ITIMER_REAL, &off, NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    unsigned long sum = 0;

    if (strcmp(mode, "early-signals") == 0)
        start_ticking();
    mtrace();
    escape(malloc(17));
    if (strcmp(mode, "signals") == 0)
        start_ticking();
    for (int i = 0; i < 100000; i++) {
        unsigned char *p = malloc(1 + i % 300);

        p[0] = (unsigned char)i;
        escape(p);
        sum += p[0];
        free(p);
    }
    escape(malloc(34));
    stop_ticking();
    say("sum %lu\n", sum);
    return 3;
}
