/* SPDX-License-Identifier: GPL-3.0-or-later
 * signal_exit.c - the main loop allocates and frees; after 50 ms a SIGALRM
 * handler calls exit(3), as Ctrl-C handlers commonly do.  The signal can
 * land while the thread is inside the tracer: exiting must not hang.
 * Exits with status 3. */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "util.h"

static void on_alarm(int sig)
{
	(void)sig;
	exit(3);
}

int main(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 50000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	mtrace();
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;)
		free(used(malloc(64)));
}
