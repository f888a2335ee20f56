/* SPDX-License-Identifier: GPL-3.0-or-later */
/* deadline.h - CLOCK_MONOTONIC deadlines (deadline.c). */
#ifndef MT_DEADLINE_H
#define MT_DEADLINE_H
#include <time.h>

/* The time now on CLOCK_MONOTONIC. */
struct timespec deadline_now(void);
/* T + D. */
struct timespec time_after(struct timespec t, struct timespec d);
/* The deadline MS milliseconds from now. */
struct timespec deadline_in_ms(int ms);
/* What is left until DEADLINE (CLOCK_MONOTONIC), never negative. */
struct timespec time_left_until(const struct timespec *deadline);
/* Milliseconds left until DEADLINE, rounded up (a wait never ends
 * before it); -1 without one. */
int ms_left_until(const struct timespec *deadline);
/* A deadline for TIMEOUT (NULL: none, the call waits for ever).  Returns
 * 0 when there is no wait to resume: an invalid timeout (EINVAL, never
 * EINTR) or a zero one. */
int deadline_of(const struct timespec *timeout, struct timespec *d,
                const struct timespec **deadline);
/* A deadline TIMEOUT milliseconds from now, kept in *D; NULL for a
 * negative TIMEOUT (none: the call waits for ever). */
const struct timespec *deadline_of_ms(int timeout, struct timespec *d);

#endif
