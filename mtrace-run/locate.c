/* SPDX-License-Identifier: GPL-3.0-or-later */
/* locate.c - where libmtrace.so and mtrace-check are, found from
 * mtrace-run's own place (/proc/self/exe), so that the build tree and an
 * installed tree both work without a setting:
 *   build tree:  TOP/mtrace-run/mtrace-run, TOP/libmtrace/libmtrace.so,
 *                TOP/mtrace-check/mtrace-check
 *   installed:   PREFIX/bin/mtrace-run, PREFIX/lib/libmtrace.so,
 *                PREFIX/bin/mtrace-check
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "locate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first of DIR/CANDIDATES[i] that exists, malloc'd, or NULL. */
static char *first_existing(const char *dir, const char *const *candidates,
                            int mode)
{
    for (int i = 0; candidates[i]; i++) {
        char *path, *real;
        if (asprintf(&path, "%s/%s", dir, candidates[i]) < 0)
            return NULL;
        if (access(path, mode) == 0 && (real = realpath(path, NULL))) {
            free(path);
            return real;
        }
        free(path);
    }
    return NULL;
}

int locate_tools(char **lib, char **checker)
{
    static const char *const libs[] = { "../libmtrace/libmtrace.so",
                                        "../lib/libmtrace.so", NULL };
    static const char *const checkers[] = { "../mtrace-check/mtrace-check",
                                            "mtrace-check", NULL };
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        perror("mtrace-run: /proc/self/exe");
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    *lib = first_existing(self, libs, R_OK);
    *checker = first_existing(self, checkers, X_OK);
    if (*lib == NULL || *checker == NULL) {
        fprintf(stderr,
                "mtrace-run: cannot find %s beside %s (looked in "
                "../libmtrace, ../lib, ../mtrace-check and .)\n",
                *lib ? "mtrace-check" : "libmtrace.so", self);
        free(*lib);
        free(*checker);
        return -1;
    }
    return 0;
}
