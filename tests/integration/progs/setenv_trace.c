/* SPDX-License-Identifier: GPL-3.0-or-later
 * setenv_trace.c - the program names its own log: setenv("MALLOC_TRACE")
 * then mtrace(), as glibc's documentation and many programs do; glibc reads
 * the variable when mtrace() is called.  Known leaks: 77, 88.
 * Usage: setenv_trace LOG */
#include <mcheck.h>
#include <stdlib.h>
#include "util.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    free(used(malloc(10)));
    setenv("MALLOC_TRACE", argv[1], 1);
    mtrace();
    escape(malloc(77));
    escape(malloc(88));
    return 0;
}
