/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fdtab.h - which descriptors libmtrace recorded as acquired (fds=1,
 * interpose/fds.c), so that only their closes are logged: descriptors
 * inherited at start (or from a fork's parent), 0-2, and those opened
 * inside libc or by libmtrace itself are never in it.  One bit per
 * descriptor below FDTAB_MAX (128 KiB of zero pages until used), set and
 * cleared atomically: threads open and close concurrently.
 */
#ifndef MT_FDTAB_H
#define MT_FDTAB_H
#include <stdint.h>

#define FDTAB_MAX (1 << 20)
#define FDTAB_FIRST 3 /* 0-2 are never recorded */

/* Marks FD recorded; returns 1 when it was already (a close we missed). */
int fdtab_set(int fd);
/* Unmarks FD; returns 1 when it was recorded (its close is to be logged). */
int fdtab_clear(int fd);
int fdtab_has(int fd);
/* Unmarks up to MAX recorded descriptors in [FIRST, LAST] and stores them
 * in OUT; returns how many.  Call again until it returns less than MAX. */
int fdtab_take_range(unsigned first, unsigned last, uint64_t *out, int max);
/* The next recorded descriptor at or after FD, or -1. */
int fdtab_next(int fd);
/* A fork child: what it inherited is not its own. */
void fdtab_reset(void);

#endif
