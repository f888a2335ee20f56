/* SPDX-License-Identifier: GPL-3.0-or-later
 * dlopen_main.c - dlopen a plugin, let it leak and dlclose it, twice; then
 * allocate again.  Known leaks: 77 and 77 (in the plugin), 99 (after).
 * With a second path, the second cycle loads that file instead (a copy of
 * the plugin, which the loader is likely to map at the same address).
 * Usage: dlopen_main /abs/path/plugin.so [/abs/path/other.so] */
#include <dlfcn.h>
#include <mcheck.h>
#include <stdlib.h>
#include "util.h"

static int plugin_cycle(const char *path)
{
    void *(*leak)(void);
    void *h = dlopen(path, RTLD_NOW);

    if (!h) {
        say("dlopen failed\n");
        return -1;
    }
    *(void **)&leak = dlsym(h, "plugin_leak");
    escape(leak());
    return dlclose(h);
}

int main(int argc, char **argv)
{
    void *kept;

    if (argc < 2)
        return 2;
    mtrace();
    if (plugin_cycle(argv[1]) != 0 ||
        plugin_cycle(argc > 2 ? argv[2] : argv[1]) != 0)
        return 1;
    kept = malloc(99);
    escape(kept);
    free(used(malloc(5)));
    say("ok\n");
    return 0;
}
