/* SPDX-License-Identifier: GPL-3.0-or-later
 * restart.c CALL - libmtrace's signals never surface as EINTR (issue 26).
 * A worker blocks in CALL (one of sleep, usleep, nanosleep,
 * clock_nanosleep, thrd_sleep, pause, sigsuspend, poll, ppoll, select,
 * pselect, epoll_wait, epoll_pwait, sigtimedwait, sigwaitinfo,
 * sem_timedwait, or poll_chk: _FORTIFY_SOURCE's __poll_chk) while main takes
 * reports with mtrace(): each report stops the worker with libmtrace's
 * signal.  Main waits until the worker sleeps in the call before the
 * first report (its state in /proc), so the reports come during it.
 *
 * Phase 1: the call ends as it would untraced: a timed call times out
 * (sleep returns 0, nanosleep 0, poll 0, sigtimedwait EAGAIN,
 * sem_timedwait ETIMEDOUT, ...) after
 * 2 s; pause and sigsuspend return only on the program's SIGUSR1 (EINTR,
 * its handler ran); sigwaitinfo returns the SIGUSR2 main sends.
 * Phase 2 (every call but pause and sigsuspend): the same call with 60 s,
 * a report, then the program's SIGUSR1: EINTR as untraced, the handler
 * ran, the time left is reported (sleep's value, nanosleep's rem).
 * Prints one line per phase and "ok"; exit status 1 on any difference.
 * Nothing depends on speed but that a report starts within the 2 s. */
#define _GNU_SOURCE
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <mcheck.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>

static const char *call;
static int ready_pipe[2], idle_pipe[2], ep;
static sem_t never_posted;

/* What _FORTIFY_SOURCE makes of poll() when it cannot check the size at
 * compile time (<bits/poll2.h>). */
extern int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout,
                      size_t fdslen);
static atomic_int worker_tid, reports_begun, worker_done;
static volatile sig_atomic_t handled;
static int failures;

static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

static void failed(const char *what)
{
    say("FAIL: %s: %s\n", call, what);
    failures++;
}

static int is(const char *name)
{
    return strcmp(call, name) == 0;
}

static int infinite(void)
{
    return is("pause") || is("sigsuspend") || is("sigwaitinfo");
}

/* One call of the family, SECS long where it has a timeout.  Returns
 * what the call returned; *ERR its errno (or error number), *LEFT the
 * time it says was left, in ms (-1: it says none). */
static long blocking_call(int secs, int *err, long *left)
{
    struct timespec ts = { secs, 0 }, rem = { -1, 0 };
    struct timeval tv = { secs, 0 };
    struct pollfd pfd = { idle_pipe[0], POLLIN, 0 };
    struct epoll_event ev;
    sigset_t set, none;
    siginfo_t si;
    fd_set rd;
    long r = 0;
    FD_ZERO(&rd);
    FD_SET(idle_pipe[0], &rd);
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigemptyset(&none);
    errno = 0;
    *left = -1;
    if (is("sleep")) {
        r = sleep((unsigned)secs);
        *left = r * 1000;
    } else if (is("usleep"))
        r = usleep((useconds_t)secs * 1000000);
    else if (is("nanosleep")) {
        r = nanosleep(&ts, &rem);
        if (r != 0)
            *left = rem.tv_sec * 1000 + rem.tv_nsec / 1000000;
    } else if (is("clock_nanosleep")) {
        r = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rem);
        if (r != 0)
            *left = rem.tv_sec * 1000 + rem.tv_nsec / 1000000;
        *err = (int)r;
        return r;
    } else if (is("thrd_sleep")) {
        r = thrd_sleep(&ts, &rem);
        if (r != 0)
            *left = rem.tv_sec * 1000 + rem.tv_nsec / 1000000;
    } else if (is("sem_timedwait")) {
        struct timespec abs;
        clock_gettime(CLOCK_REALTIME, &abs);
        abs.tv_sec += secs;
        r = sem_timedwait(&never_posted, &abs);
    } else if (is("pause"))
        r = pause();
    else if (is("sigsuspend"))
        r = sigsuspend(&none);
    else if (is("poll"))
        r = poll(&pfd, 1, secs * 1000);
    else if (is("poll_chk"))
        r = __poll_chk(&pfd, 1, secs * 1000, sizeof pfd);
    else if (is("ppoll"))
        r = ppoll(&pfd, 1, &ts, NULL);
    else if (is("select")) {
        r = select(idle_pipe[0] + 1, &rd, NULL, NULL, &tv);
        *left = tv.tv_sec * 1000 + tv.tv_usec / 1000;
    } else if (is("pselect"))
        r = pselect(idle_pipe[0] + 1, &rd, NULL, NULL, &ts, NULL);
    else if (is("epoll_wait"))
        r = epoll_wait(ep, &ev, 1, secs * 1000);
    else if (is("epoll_pwait"))
        r = epoll_pwait(ep, &ev, 1, secs * 1000, NULL);
    else if (is("sigtimedwait"))
        r = sigtimedwait(&set, &si, &ts);
    else if (is("sigwaitinfo"))
        r = sigwaitinfo(&set, &si);
    *err = errno;
    return r;
}

static void tell_ready(void)
{
    char c = 'r';
    if (write(ready_pipe[1], &c, 1) != 1)
        failed("pipe");
}

static void *worker(void *arg)
{
    (void)arg;
    int err;
    long left, r;
    atomic_store(&worker_tid, (int)syscall(SYS_gettid));

    /* Phase 1: only libmtrace's signals (and the end main sends). */
    tell_ready();
    r = blocking_call(2, &err, &left);
    say("phase 1: %s returned %ld, errno %s, handler ran %d times\n", call,
        r, err == EINTR ? "EINTR" : err == EAGAIN ? "EAGAIN"
           : err == ETIMEDOUT ? "ETIMEDOUT" : err ? "other" : "0",
        (int)handled);
    if (atomic_load(&reports_begun) == 0)
        failed("no report started during the call");
    if (is("pause") || is("sigsuspend")) {
        if (r != -1 || err != EINTR || handled != 1)
            failed("returned before the program's own signal");
        atomic_store(&worker_done, 1);
        return NULL;
    }
    if (is("sigwaitinfo") ? r != SIGUSR2
        : is("sigtimedwait") ? r != -1 || err != EAGAIN
        : is("sem_timedwait") ? r != -1 || err != ETIMEDOUT
        : is("clock_nanosleep") ? r != 0
        : r != 0)
        failed("the call did not time out as untraced");
    if (is("select") && left != 0)
        failed("select's timeout was not left at 0");
    if (handled != 0)
        failed("the handler ran");

    /* Phase 2: the program's own signal interrupts it as before. */
    tell_ready();
    r = blocking_call(60, &err, &left);
    int interrupted = is("sleep") ? r > 0
                    : is("thrd_sleep") ? r == -1
                    : is("clock_nanosleep") ? r == EINTR
                    : r == -1 && err == EINTR;
    say("phase 2: %s returned %ld, %s, handler ran %d times, %s\n", call, r,
        interrupted ? "interrupted" : "not interrupted", (int)handled,
        left < 0 ? "no time left said"
        : left > 0 && left <= 60000 ? "time left said" : "wrong time left");
    if (!interrupted || handled != 1)
        failed("the program's signal did not interrupt the call");
    if ((is("sleep") || is("nanosleep") || is("clock_nanosleep") ||
         is("thrd_sleep") || is("select")) && !(left > 0 && left <= 60000))
        failed("the time left is wrong");
    atomic_store(&worker_done, 1);
    return NULL;
}

/* Waits until the worker sleeps in the kernel (state S), or is gone. */
static void wait_blocked(void)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat",
             atomic_load(&worker_tid));
    for (;;) {
        if (atomic_load(&worker_done))
            return;
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            return;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
            return;
        buf[n] = '\0';
        const char *paren = strrchr(buf, ')');
        if (paren && paren[1] == ' ' && paren[2] == 'S')
            return;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
}

static void wait_ready(void)
{
    char c;
    if (read(ready_pipe[0], &c, 1) != 1)
        failed("pipe");
    wait_blocked();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        say("usage: restart CALL\n");
        return 2;
    }
    call = argv[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &usr2, NULL); /* sigwaitinfo's, sigtimedwait's */
    if (pipe(ready_pipe) || pipe(idle_pipe))
        return 2;
    ep = epoll_create1(0);
    sem_init(&never_posted, 0, 0);
    struct epoll_event ev = { .events = EPOLLIN };
    epoll_ctl(ep, EPOLL_CTL_ADD, idle_pipe[0], &ev);
    /* The thread first: glibc keeps its TLS block for the next thread. */
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    mtrace();
    wait_ready();
    atomic_store(&reports_begun, 1);
    for (int i = 0; i < 3; i++)
        mtrace(); /* a report: the worker is stopped with SIGURG */
    if (infinite()) {
        wait_blocked();
        pthread_kill(t, is("sigwaitinfo") ? SIGUSR2 : SIGUSR1);
    }
    if (!is("pause") && !is("sigsuspend")) {
        wait_ready();
        mtrace();
        wait_blocked();
        pthread_kill(t, SIGUSR1);
    }
    pthread_join(t, NULL);
    muntrace();
    if (failures)
        return 1;
    say("ok\n");
    return 0;
}
