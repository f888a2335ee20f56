/* SPDX-License-Identifier: GPL-3.0-or-later
 * reportsig.c MODE - the report signal (MEMLEAK_CONFIG=signal=USR2) and
 * the program (issue 26).  Run with mtraceinit,signal=USR2.
 *   pause: says "ready PID", then waits in pause() for its own SIGUSR1 (a
 *          handler that counts); report signals meanwhile must not end
 *          the wait.  Prints what pause() returned; status 0 when it
 *          returned -1/EINTR after the handler ran once.
 *   exit:  asks for two reports with raise(SIGUSR2) and exits at once,
 *          with libmtrace's reporter thread made unable to run first
 *          (pinned to this thread's CPU, SCHED_IDLE): both reports must
 *          still be written, before the exit report. */
#define _GNU_SOURCE
#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>

static volatile sig_atomic_t handled;
static void *volatile keep;

static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

/* Every other thread (libmtrace's) on this thread's CPU, at SCHED_IDLE. */
static void starve_other_threads(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    pid_t self = (pid_t)syscall(SYS_gettid);
    sched_setaffinity(self, sizeof one, &one);
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        pid_t tid = atoi(e->d_name);
        if (tid <= 0 || tid == self)
            continue;
        struct sched_param p = { 0 };
        if (sched_setaffinity(tid, sizeof one, &one) != 0 ||
            sched_setscheduler(tid, SCHED_IDLE, &p) != 0)
            say("cannot starve thread %d: %s\n", tid, strerror(errno));
    }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    keep = malloc(4242);
    if (argc == 2 && strcmp(argv[1], "pause") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sigaction(SIGUSR1, &sa, NULL);
        say("ready %d\n", (int)getpid());
        int r = pause();
        int err = errno;
        say("pause returned %d, errno %s, handler ran %d times\n", r,
            err == EINTR ? "EINTR" : "other", (int)handled);
        return !(r == -1 && err == EINTR && handled == 1);
    }
    if (argc == 2 && strcmp(argv[1], "exit") == 0) {
        starve_other_threads();
        raise(SIGUSR2);
        raise(SIGUSR2);
        return 0;
    }
    say("usage: reportsig pause|exit\n");
    return 2;
}
