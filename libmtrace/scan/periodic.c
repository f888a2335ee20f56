/* SPDX-License-Identifier: GPL-3.0-or-later */
/* periodic.c - see periodic.h.  The thread sleeps with every signal
 * blocked, by the raw clock_nanosleep system call (never the library's
 * own exported wrapper, restart.c) on an absolute deadline, so a late
 * wake-up never shifts the later ones; a scan that overruns its period
 * is followed by a full period, never by a burst of scans.  The pause
 * count is checked under the report lock (report_verdicts_if), so no
 * scan starts once periodic_pause has returned.  Fork takes the report
 * lock in its prepare handler (registered after the tracer's, so run
 * before it: the lock order, debug.h): a child is never born with a
 * half-done scan or a lock held by a thread it does not have. */
#define _GNU_SOURCE
#include "scan/periodic.h"
#include "../include/mtrace-format.h"
#include "base/guard.h"
#include "base/ownthread.h"
#include "scan/report.h"
#include "scan/scan.h"
#include "track/tracer.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long period_us;
static int pauses;
static sem_t thread_ready;

static int scan_now(void)
{
    return __atomic_load_n(&pauses, __ATOMIC_ACQUIRE) == 0 && tracer_active();
}

static void add_us(struct timespec *t, long us)
{
    t->tv_sec += us / 1000000;
    t->tv_nsec += (us % 1000000) * 1000;
    if (t->tv_nsec >= 1000000000) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000;
    }
}

static int later(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec ||
           (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

static void sleep_until(const struct timespec *when)
{
    while (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, when,
                   NULL) != 0 &&
           errno == EINTR)
        ;
}

static void *periodic_thread(void *arg)
{
    (void)arg;
    guard_enter();             /* its allocations are never traced */
    scan_own_thread_started(); /* never stopped, its stack no root */
    sem_post(&thread_ready);
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        add_us(&next, period_us);
        sleep_until(&next);
        report_verdicts_if(scan_now, MTF_TRIGGER_PERIODIC);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (later(&now, &next))
            next = now;
    }
    return NULL;
}

static void fork_prepare(void)
{
    report_hold();
}

static void fork_done(void)
{
    report_let_go();
}

void periodic_start(long us)
{
    if (us <= 0 || period_us)
        return;
    period_us = us;
    if (ownthread_start(periodic_thread, &thread_ready) != 0) {
        period_us = 0;
        return;
    }
    pthread_atfork(fork_prepare, fork_done, fork_done);
}

void periodic_pause(void)
{
    if (!period_us)
        return;
    __atomic_add_fetch(&pauses, 1, __ATOMIC_RELEASE);
    report_hold(); /* a scan under way ends first */
    report_let_go();
}

void periodic_resume(void)
{
    if (period_us)
        __atomic_sub_fetch(&pauses, 1, __ATOMIC_RELEASE);
}
