/* SPDX-License-Identifier: GPL-3.0-or-later */
/* valgrind.c - libmtrace under valgrind (LD_PRELOAD=libmtrace.so valgrind
 * PROGRAM).  valgrind hands LD_PRELOAD on to the program, after its own
 * preloads: its core (vgpreload_core) always, and for the tools that
 * watch the heap a preload whose malloc, free, new and delete replace
 * every other definition, ours included, by redirecting the calls
 * themselves.  Under such a tool libmtrace sees no allocation at all: its
 * log would list no leak whatever the program leaks.  So it says so, on
 * stderr and in the log's header (untraced=valgrind-TOOL, doc/format.md),
 * and mtrace-check reports such a log as not traced.  Under --tool=none
 * the program's calls reach libmtrace as usual (only the scan is off:
 * valgrind's own memory cannot be read, see scan.c).
 *
 * The environment is read when collection starts: valgrind's preloads
 * are named there, as the program got it. */
#define _GNU_SOURCE
#include "base/valgrind.h"
#include <stdlib.h>
#include <string.h>

static const char *preloads(void)
{
    const char *p = getenv("LD_PRELOAD");
    return p ? p : "";
}

int valgrind_running(void)
{
    return strstr(preloads(), "/vgpreload_core-") != NULL;
}

/* The tools that replace the allocator (valgrind 3.19's). */
static const char *const heap_tools[] = { "memcheck", "helgrind", "drd",
                                          "massif",   "dhat",     NULL };

const char *valgrind_allocator(void)
{
    const char *p = preloads();
    for (int i = 0; heap_tools[i]; i++) {
        const char *at = strstr(p, "/vgpreload_");
        for (; at; at = strstr(at + 1, "/vgpreload_")) {
            size_t n = strlen(heap_tools[i]);
            if (strncmp(at + 11, heap_tools[i], n) == 0 && at[11 + n] == '-')
                return heap_tools[i];
        }
    }
    return NULL;
}
