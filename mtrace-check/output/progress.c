/* SPDX-License-Identifier: GPL-3.0-or-later */
/* progress.c - the progress line (see progress.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/progress.h"
#include "base/diag.h"
#include "base/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TICK_MS = 200, QUIET_MS = 1000 };

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int running, stop, shown;
    const uint64_t *bytes;
    uint64_t total;
    const char *phase;
    struct timespec start;
} pr = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) +
           (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void size_text(char *buf, size_t size, double v)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void progress_format(char *buf, unsigned size, uint64_t done, uint64_t total,
                     double seconds, const char *phase)
{
    char d[32], t[32], r[32];
    if (phase) {
        snprintf(buf, size, "%s: %s...", progname, phase);
        return;
    }
    double rate = seconds > 0 ? (double)done / seconds : 0;
    size_text(d, sizeof d, (double)done);
    size_text(r, sizeof r, rate);
    if (total == 0) {
        snprintf(buf, size, "%s: %s read, %s/s", progname, d, r);
        return;
    }
    size_text(t, sizeof t, (double)total);
    int pct = (int)(100.0 * (double)done / (double)total);
    if (rate > 0 && done < total) {
        double left = (double)(total - done) / rate;
        snprintf(buf, size, "%s: %s of %s (%d%%), %s/s, %.0f s left", progname,
                 d, t, pct, r, left + 0.5);
    } else {
        snprintf(buf, size, "%s: %s of %s (%d%%), %s/s", progname, d, t, pct,
                 r);
    }
}

static void show(void)
{
    char line[160];
    double s = seconds_since(&pr.start);
    uint64_t done = __atomic_load_n(pr.bytes, __ATOMIC_RELAXED);
    progress_format(line, sizeof line, done, pr.total, s, pr.phase);
    /* "\r", the line, then erase what a longer line left. */
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    pr.shown = 1;
}

/* A message is about to be printed: erase the line (the next tick draws
 * it again below the message); the lock keeps the tick out meanwhile. */
static void before_message(void)
{
    pthread_mutex_lock(&pr.lock);
    if (pr.shown) {
        fputs("\r\033[K", stderr);
        pr.shown = 0;
    }
}

static void after_message(void)
{
    pthread_mutex_unlock(&pr.lock);
}

static void *watch(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pr.lock);
    while (!pr.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L)
            until.tv_sec++, until.tv_nsec -= 1000000000L;
        int err = pthread_cond_timedwait(&pr.wake, &pr.lock, &until);
        if (pr.stop)
            break;
        if (err == ETIMEDOUT && seconds_since(&pr.start) * 1000 >= QUIET_MS)
            show();
    }
    pthread_mutex_unlock(&pr.lock);
    return NULL;
}

void progress_start(const uint64_t *bytes, uint64_t total, int quiet)
{
    if (quiet || pr.running || !isatty(STDERR_FILENO))
        return;
    pr.bytes = bytes;
    pr.total = total;
    pr.stop = pr.shown = 0;
    pr.phase = NULL;
    clock_gettime(CLOCK_MONOTONIC, &pr.start);
    pr.running = pthread_create(&pr.thread, NULL, watch, NULL) == 0;
    if (pr.running) {
        message_begin = before_message;
        message_end = after_message;
    }
}

void progress_phase(const char *what)
{
    pthread_mutex_lock(&pr.lock);
    pr.phase = what;
    pthread_mutex_unlock(&pr.lock);
}

void progress_stop(void)
{
    if (!pr.running)
        return;
    pthread_mutex_lock(&pr.lock);
    pr.stop = 1;
    pthread_cond_signal(&pr.wake);
    pthread_mutex_unlock(&pr.lock);
    pthread_join(pr.thread, NULL);
    pr.running = 0;
    message_begin = message_end = NULL;
    if (pr.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
