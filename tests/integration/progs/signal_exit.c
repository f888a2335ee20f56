/* SPDX-License-Identifier: GPL-3.0-or-later
 * signal_exit.c - the main loop allocates and frees; after 50 ms a SIGALRM
 * handler calls exit(3), as Ctrl-C handlers commonly do (with "_exit",
 * the async-signal-safe _exit(3)).  The signal can land while the thread
 * is inside the tracer: exiting must not hang.  Exits with status 3.
 * Usage: signal_exit [_exit] */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util.h"

static int use_underscore_exit;

static void on_alarm(int sig)
{
    (void)sig;
    if (use_underscore_exit)
        _exit(3);
    exit(3);
}

int main(int argc, char **argv)
{
    struct itimerval it = { { 0, 0 }, { 0, 50000 } };
    struct sigaction sa;

    use_underscore_exit = argc > 1 && strcmp(argv[1], "_exit") == 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    mtrace();
    setitimer(ITIMER_REAL, &it, NULL);
    for (;;)
        free(used(malloc(64)));
}
