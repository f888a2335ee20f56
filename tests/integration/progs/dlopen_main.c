/* SPDX-License-Identifier: GPL-3.0-or-later
 * dlopen_main.c - dlopen a plugin, let it leak, dlclose it, then allocate
 * again.  Known leaks: 77 (in the plugin), 99 (after the dlclose).
 * Usage: dlopen_main /abs/path/plugin.so */
#include <dlfcn.h>
#include <mcheck.h>
#include <stdlib.h>
#include "util.h"

int main(int argc, char **argv)
{
	void *(*leak)(void);
	void *h, *kept;

	if (argc < 2)
		return 2;
	mtrace();
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		say("dlopen failed\n");
		return 1;
	}
	*(void **)&leak = dlsym(h, "plugin_leak");
	kept = leak();
	escape(kept);
	dlclose(h);
	kept = malloc(99);
	escape(kept);
	free(used(malloc(5)));
	say("ok\n");
	return 0;
}
