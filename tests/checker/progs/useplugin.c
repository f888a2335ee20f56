/* SPDX-License-Identifier: GPL-3.0-or-later */
/* useplugin.c - dlopen()s ./plugin.so (path in argv[1]), leaks from it,
 * then dlclose()s it before exit.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include <dlfcn.h>
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    void *h;
    void *(*alloc)(size_t);
    char *(*name)(void);

    if (argc < 2)
        return 2;
    mtrace();
    h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    alloc = (void *(*)(size_t))dlsym(h, "plugin_alloc");
    name = (char *(*)(void))dlsym(h, "plugin_name");
    void *keep = alloc(77);
    free(alloc(12));
    char *n = name();
    (void)keep, (void)n;
    dlclose(h);
    return 0;
}
