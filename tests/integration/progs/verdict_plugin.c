/* SPDX-License-Identifier: GPL-3.0-or-later
 * verdict_plugin.c - a dlopen()ed module whose dynamic TLS (allocated by
 * the loader on first access, 1 MiB) holds the only pointer to a block. */
__thread void *plugin_slot;
__thread char plugin_big[1 << 20];

void plugin_set(void *p);

void plugin_set(void *p)
{
    plugin_slot = p;
    plugin_big[0] = 1;
}
