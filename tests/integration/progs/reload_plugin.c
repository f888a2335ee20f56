/* SPDX-License-Identifier: GPL-3.0-or-later
 * reload_plugin.c - a plugin that allocates in its constructor and frees
 * in its destructor, for reload.c. */
#include <stdlib.h>
#include "util.h"

static void *kept;

__attribute__((constructor)) static void plugin_init(void)
{
    kept = used(malloc(64));
}

__attribute__((destructor)) static void plugin_fini(void)
{
    free(kept);
}

void *reload_work(void);

void *reload_work(void)
{
    free(used(malloc(32)));
    return kept;
}
