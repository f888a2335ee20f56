/* SPDX-License-Identifier: GPL-3.0-or-later
 * die.c - 2000 malloc(32), 1000 of them freed, one 4321-byte block, then
 * the process dies: "abort" (abort()), "segv" (a null store), "term"
 * (SIGTERM to itself), "kill" (SIGKILL to itself: nothing can be done).
 * The log must keep every event and, but for "kill", end with
 * "#e signal sig=N"; the process must die of the same signal as untraced.
 * Usage: die abort|segv|term|kill */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

static void *blocks[2000];

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "abort";

    mtrace();
    for (int i = 0; i < 2000; i++)
        blocks[i] = used(malloc(32));
    for (int i = 0; i < 2000; i += 2)
        free(blocks[i]);
    escape(malloc(4321));
    if (strcmp(how, "segv") == 0)
        *(volatile int *)hide(NULL) = 1;
    if (strcmp(how, "term") == 0)
        kill(getpid(), SIGTERM);
    if (strcmp(how, "kill") == 0)
        kill(getpid(), SIGKILL);
    abort();
}
