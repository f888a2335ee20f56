/* SPDX-License-Identifier: GPL-3.0-or-later
 * exitpaths.c - the log must be complete however the program ends.
 * Calls mtrace() twice (the second call must not restart the log).
 * Known leaks: 31, 62 (and, except in "muntrace" mode, 93).  In "muntrace"
 * mode the 93 block is allocated after muntrace() and must not be logged.
 * "restart" calls mtrace() again after muntrace(): the log must not be
 * truncated (the 31 and 62 blocks stay in it).
 * Usage: exitpaths return|exit|_exit|_Exit|quick_exit|muntrace|restart */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void *keep[3];

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";

    mtrace();
    keep[0] = malloc(31);
    free(used(malloc(1000)));
    mtrace();
    keep[1] = malloc(62);
    if (strcmp(mode, "muntrace") == 0 || strcmp(mode, "restart") == 0)
        muntrace();
    if (strcmp(mode, "restart") == 0)
        mtrace();
    keep[2] = malloc(93);
    escape(keep);
    if (strcmp(mode, "exit") == 0)
        exit(0);
    if (strcmp(mode, "_exit") == 0)
        _exit(0);
    if (strcmp(mode, "_Exit") == 0)
        _Exit(0);
    if (strcmp(mode, "quick_exit") == 0)
        quick_exit(0);
    return 0;
}
