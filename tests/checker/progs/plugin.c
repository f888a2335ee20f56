/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plugin.c - a shared object whose allocations come from a module other
 * than the executable (the WHERE field names plugin.so). */
#include <stdlib.h>
#include <string.h>

void *plugin_alloc(size_t n)
{
    return malloc(n); /* CALL:plugin-malloc */
}

char *plugin_name(void)
{
    return strdup("plugin"); /* CALL:plugin-strdup */
}
