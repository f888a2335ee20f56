/* SPDX-License-Identifier: GPL-3.0-or-later
 * plugin.c - a dlopen()ed module that leaks 77 bytes from a static helper;
 * plugin_alloc/plugin_free allocate and free on behalf of the caller. */
#include <stdlib.h>
#include "util.h"

static __attribute__((noinline)) void *plugin_helper(size_t n)
{
    void *p = malloc(n);

    escape(p);
    return p;
}

void *plugin_leak(void);

void *plugin_leak(void)
{
    void *p;

    free(plugin_helper(88));
    p = plugin_helper(77);
    escape(p); /* no tail call: plugin_leak stays on the stack */
    return p;
}

void *plugin_alloc(size_t n);
void plugin_free(void *p);

void *plugin_alloc(size_t n)
{
    return malloc(n);
}

void plugin_free(void *p)
{
    free(p);
}
