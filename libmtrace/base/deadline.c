/* SPDX-License-Identifier: GPL-3.0-or-later */
/* deadline.c - CLOCK_MONOTONIC deadlines for the waits that restart.c
 * resumes after a signal of ours: a wait given a timeout must end when
 * the program's own call would have, however often it is resumed.
 * GPL-3.0-or-later. */
#include "base/deadline.h"
#include <limits.h>
#include <stddef.h>

struct timespec deadline_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

struct timespec time_after(struct timespec t, struct timespec d)
{
    t.tv_sec += d.tv_sec;
    t.tv_nsec += d.tv_nsec;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

struct timespec deadline_in_ms(int ms)
{
    struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000 };
    return time_after(deadline_now(), d);
}

/* What is left until DEADLINE (CLOCK_MONOTONIC), never negative. */
struct timespec time_left_until(const struct timespec *deadline)
{
    struct timespec t = deadline_now(), d = { 0, 0 };
    if (t.tv_sec > deadline->tv_sec ||
        (t.tv_sec == deadline->tv_sec && t.tv_nsec >= deadline->tv_nsec))
        return d;
    d.tv_sec = deadline->tv_sec - t.tv_sec;
    d.tv_nsec = deadline->tv_nsec - t.tv_nsec;
    if (d.tv_nsec < 0) {
        d.tv_sec--;
        d.tv_nsec += 1000000000;
    }
    return d;
}

/* Milliseconds left until DEADLINE, rounded up (a wait never ends
 * before it); -1 without one. */
int ms_left_until(const struct timespec *deadline)
{
    if (deadline == NULL)
        return -1;
    struct timespec d = time_left_until(deadline);
    long long ms = (long long)d.tv_sec * 1000 + (d.tv_nsec + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* A deadline for TIMEOUT (NULL: none, the call waits for ever).  Returns
 * 0 when there is no wait to resume: an invalid timeout (EINVAL, never
 * EINTR) or a zero one. */
int deadline_of(const struct timespec *timeout, struct timespec *d,
                const struct timespec **deadline)
{
    *deadline = NULL;
    if (timeout == NULL)
        return 1;
    if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
        timeout->tv_nsec >= 1000000000 ||
        (timeout->tv_sec == 0 && timeout->tv_nsec == 0))
        return 0;
    *d = time_after(deadline_now(), *timeout);
    *deadline = d;
    return 1;
}

const struct timespec *deadline_of_ms(int timeout, struct timespec *d)
{
    if (timeout < 0)
        return NULL;
    *d = deadline_in_ms(timeout);
    return d;
}
