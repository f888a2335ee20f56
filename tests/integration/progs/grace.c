/* SPDX-License-Identifier: GPL-3.0-or-later
 * grace.c - what libmtrace does at load so that a later mtrace() in a
 * threaded program does not wait for the kernel: before any thread or
 * mtrace(), main prints its descriptor table's size ("FDSize:" of
 * /proc/self/status) and whether the process is registered for
 * membarrier(2)'s private expedited command (0, or the errno), then starts
 * a thread, calls mtrace() with it running, says how long that call
 * took (for bench/RESULTS.md; no test reads it), and leaks 77 bytes.
 * Growing the table or registering once threads share the process waits
 * for an RCU grace period (tens of milliseconds in a VM). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include "util.h"

static long fd_table_size(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *p = strstr(buf, "\nFDSize:");
    return p ? strtol(p + 8, NULL, 10) : -1;
}

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(void)
{
    long fds = fd_table_size();
    int mb = syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)
                 ? errno
                 : 0;
    say("fdsize %ld membarrier %d\n", fds, mb);
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) != 0)
        return 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    mtrace();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    say("mtrace() took %ld us\n", (long)((t1.tv_sec - t0.tv_sec) * 1000000 +
                                          (t1.tv_nsec - t0.tv_nsec) / 1000));
    escape(malloc(77));
    return 0;
}
