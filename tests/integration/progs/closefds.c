/* SPDX-License-Identifier: GPL-3.0-or-later
 * closefds.c - daemon-style: close every descriptor above 2, then open ten
 * files (which get the lowest free descriptors, 3..12) and keep allocating
 * while writing to them.  Each file must hold exactly what the program
 * wrote, whatever happened to the tracer's own descriptor.
 * Usage: closefds PREFIX  (writes PREFIX.0 ... PREFIX.9) */
#include <fcntl.h>
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define NFILES 10

static void churn(int n)
{
    for (int i = 0; i < n; i++)
        free(used(malloc(16 + i % 500)));
}

static int open_files(const char *prefix, int *fds)
{
    char name[4096];

    for (int k = 0; k < NFILES; k++) {
        snprintf(name, sizeof name, "%s.%d", prefix, k);
        fds[k] = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fds[k] < 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    char line[64];
    int fds[NFILES];

    if (argc < 2)
        return 2;
    mtrace();
    churn(1000);
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    if (open_files(argv[1], fds) < 0)
        return 1;
    for (int i = 0; i < 20; i++) {
        churn(2000);
        for (int k = 0; k < NFILES; k++) {
            int n = snprintf(line, sizeof line, "file %d line %d\n", k, i);

            if (write(fds[k], line, n) != n)
                return 1;
        }
    }
    for (int k = 0; k < NFILES; k++)
        close(fds[k]);
    say("done\n");
    return 0;
}
