/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plugin.c - a module the fastunwind tests dlopen: a chain of frames in
 * it, ending in the caller's callback.  Built twice, the second time with
 * PAD set for other frame sizes at the same addresses. */
#include <alloca.h>
#include <string.h>

#ifndef PAD
#define PAD 24
#endif

__attribute__((noinline)) static int plugin_level(int depth, void (*cb)(void *),
                                                  void *arg)
{
    volatile char pad[PAD];
    pad[0] = (char)depth;
    if (depth == 0)
        cb(arg);
    else
        plugin_level(depth - 1, cb, arg);
    __asm__ volatile("" ::: "memory");
    return pad[0];
}

int plugin_chain(int depth, void (*cb)(void *), void *arg); /* by dlsym */

int plugin_chain(int depth, void (*cb)(void *), void *arg)
{
    char *scratch = alloca((size_t)depth * 16 + 8); /* an RBP-based frame */
    memset(scratch, depth, (size_t)depth * 16 + 8);
    int r = plugin_level(depth, cb, arg);
    __asm__ volatile("" ::"r"(scratch) : "memory");
    return r + scratch[0];
}
