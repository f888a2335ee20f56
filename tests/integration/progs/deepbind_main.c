/* SPDX-License-Identifier: GPL-3.0-or-later
 * deepbind_main.c - the plugin is opened with RTLD_DEEPBIND, so its own
 * malloc/free calls bind to libc's rather than the preloaded ones; blocks
 * cross between main and the plugin in both directions.  Known leaks: 300.
 * Usage: deepbind_main /abs/path/plugin.so */
#include <dlfcn.h>
#include <mcheck.h>
#include <stdlib.h>
#include "util.h"

int main(int argc, char **argv)
{
    void *(*plugin_alloc)(size_t);
    void (*plugin_free)(void *);
    void *h;

    if (argc < 2)
        return 2;
    mtrace();
    h = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND);
    if (!h)
        return 1;
    *(void **)&plugin_alloc = dlsym(h, "plugin_alloc");
    *(void **)&plugin_free = dlsym(h, "plugin_free");
    for (int i = 0; i < 10; i++)
        plugin_free(used(malloc(100)));
    for (int i = 0; i < 10; i++)
        free(plugin_alloc(200));
    dlclose(h);
    escape(malloc(300));
    say("done\n");
    return 0;
}
