/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resource.h - resources other than memory (memleak.h's
 * memleak_resource_acquire/release, and descriptors with fds=1): each
 * acquire and release is one "#r" record of the log (doc/format.md,
 * "Resources") naming the stack of the call.  Nothing is kept here: the
 * checker pairs the records and lists what was never released.
 */
#ifndef MT_RESOURCE_H
#define MT_RESOURCE_H
#include <stdint.h>

/* Logs OP (MTF_RES_ACQUIRE or MTF_RES_RELEASE) of resource ID of KIND
 * with the stack from CALLER up.  The caller checked tracer_active() and
 * holds the recursion guard. */
void resource_event(char op, const char *kind, uint64_t id, const void *caller);
/* The same for several ids of one kind and stack (a pipe's two ends). */
void resource_events(char op, const char *kind, const uint64_t *ids, int n,
                     const void *caller);

#endif
