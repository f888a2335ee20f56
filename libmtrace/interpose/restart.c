/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restart.c - libmtrace's own signals never end a blocking call early.
 *
 * A scan stops the other threads with a signal (stopworld.h) and the
 * report signal has a handler of ours (report.c); any handler makes the
 * kernel end sleep, nanosleep, clock_nanosleep, usleep, thrd_sleep,
 * pause, sigsuspend, poll, ppoll, select, pselect, epoll_wait,
 * epoll_pwait(2), sigtimedwait, sigwaitinfo and the timed semaphore
 * waits with EINTR, whatever SA_RESTART says.  So these are wrapped: each
 * calls libc's own function once (one system call, as untraced: nothing
 * else on that path but two thread-local loads, and a clock read, vDSO,
 * before a poll-like call or sigtimedwait with a finite timeout), and
 * only when it fails with EINTR looks at the per-thread delivery counts
 * (sigdefer.h): when signals of ours came and none of the program's, the
 * call is made again for the time that was left (the kernel's remaining
 * time, or an absolute deadline on CLOCK_MONOTONIC).  A program's signal
 * ends the call with EINTR as before, its handler run.
 *
 * The wait that follows is made with every signal blocked while the
 * counts are checked and the mask given back atomically by the waiting
 * call (ppoll, pselect, epoll_pwait, sigsuspend: the program's mask, or
 * its own mask argument), so a signal of the program's that comes between
 * our signal and the wait still ends it.  sigtimedwait, sigwaitinfo, the
 * semaphores and the sleeps on other clocks have no such call: their
 * counts are checked just before the call, and a program signal in those
 * few instructions leaves the call waiting, as one just before the
 * program's own call would.
 *
 * The real functions are libc's (dlsym RTLD_NEXT, resolved when the
 * library loads): cancellation points stay cancellation points.  Code
 * of libmtrace never calls the wrappers.  No stdio, no malloc, no locks:
 * these run in signal handlers too.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "base/export.h"
#include "base/deadline.h"
#include "base/real.h"
#include "base/sigdefer.h"
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

/* _FORTIFY_SOURCE's poll and ppoll (<bits/poll2.h>). */
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds,
                const struct timespec *timeout, const sigset_t *mask,
                size_t fdslen);

/* ---- libc's functions ------------------------------------------------------ */

enum {
    R_NANOSLEEP,
    R_CLOCK_NANOSLEEP,
    R_PAUSE,
    R_SIGSUSPEND,
    R_POLL,
    R_PPOLL,
    R_POLL_CHK,
    R_PPOLL_CHK,
    R_SELECT,
    R_PSELECT,
    R_EPOLL_WAIT,
    R_EPOLL_PWAIT,
    R_EPOLL_PWAIT2,
    R_SIGTIMEDWAIT,
    R_SIGWAITINFO,
    R_SEM_TIMEDWAIT,
    R_SEM_CLOCKWAIT,
    R_COUNT
};

static const char *const real_names[R_COUNT] = {
    "nanosleep",  "clock_nanosleep", "pause",       "sigsuspend",
    "poll",       "ppoll",           "__poll_chk",  "__ppoll_chk",
    "select",     "pselect",         "epoll_wait",  "epoll_pwait",
    "epoll_pwait2", "sigtimedwait",  "sigwaitinfo", "sem_timedwait",
    "sem_clockwait",
};

static void *real_fns[R_COUNT];

/* libc's function I; NULL when libc has none (errno ENOSYS then). */
static void *real_fn(int i)
{
    void *fn = __atomic_load_n(&real_fns[i], __ATOMIC_RELAXED);
    if (__builtin_expect(fn == NULL, 0)) {
        /* Called before our constructor ran (another library's). */
        fn = real_next_symbol(real_names[i]);
        __atomic_store_n(&real_fns[i], fn, __ATOMIC_RELAXED);
        if (fn == NULL)
            errno = ENOSYS;
    }
    return fn;
}

/* dlsym allocates and takes the loader's lock: never from a handler. */
__attribute__((constructor)) static void resolve_real_fns(void)
{
    for (int i = 0; i < R_COUNT; i++)
        if (__atomic_load_n(&real_fns[i], __ATOMIC_RELAXED) == NULL)
            __atomic_store_n(&real_fns[i], real_next_symbol(real_names[i]),
                             __ATOMIC_RELAXED);
}

#define REAL(type, i) ((type)real_fn(i))

typedef int (*nanosleep_fn)(const struct timespec *, struct timespec *);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *,
                                  struct timespec *);
typedef int (*pause_fn)(void);
typedef int (*sigsuspend_fn)(const sigset_t *);
typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
typedef int (*ppoll_fn)(struct pollfd *, nfds_t, const struct timespec *,
                        const sigset_t *);
typedef int (*poll_chk_fn)(struct pollfd *, nfds_t, int, size_t);
typedef int (*ppoll_chk_fn)(struct pollfd *, nfds_t, const struct timespec *,
                            const sigset_t *, size_t);
typedef int (*select_fn)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
typedef int (*pselect_fn)(int, fd_set *, fd_set *, fd_set *,
                          const struct timespec *, const sigset_t *);
typedef int (*epoll_wait_fn)(int, struct epoll_event *, int, int);
typedef int (*epoll_pwait_fn)(int, struct epoll_event *, int, int,
                              const sigset_t *);
typedef int (*epoll_pwait2_fn)(int, struct epoll_event *, int,
                               const struct timespec *, const sigset_t *);
typedef int (*sigtimedwait_fn)(const sigset_t *, siginfo_t *,
                               const struct timespec *);
typedef int (*sigwaitinfo_fn)(const sigset_t *, siginfo_t *);
typedef int (*sem_timedwait_fn)(sem_t *, const struct timespec *);
typedef int (*sem_clockwait_fn)(sem_t *, clockid_t, const struct timespec *);

/* ---- whose signals came ------------------------------------------------------ */

struct seen {
    unsigned ours, program;
};

static inline struct seen seen_now(void)
{
    struct seen s = { __atomic_load_n(&mt_signals_ours, __ATOMIC_RELAXED),
                      __atomic_load_n(&mt_signals_program, __ATOMIC_RELAXED) };
    return s;
}

/* Some of the program's signals were delivered since S. */
static int program_since(const struct seen *s)
{
    return __atomic_load_n(&mt_signals_program, __ATOMIC_RELAXED) !=
           s->program;
}

/* Ours came since S and none of the program's: the call resumes.  S then
 * counts ours from now on. */
static int only_ours_since(struct seen *s)
{
    unsigned ours = __atomic_load_n(&mt_signals_ours, __ATOMIC_RELAXED);
    if (program_since(s) || ours == s->ours)
        return 0;
    s->ours = ours;
    return 1;
}

/* Every signal blocked (raw: libc's sigprocmask keeps its own two
 * unblocked); the mask before goes to OLD. */
static void block_all(sigset_t *old)
{
    sigset_t all;
    memset(&all, 0xff, sizeof all);
    sigemptyset(old);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
}

static void set_mask(const sigset_t *mask)
{
    int saved = errno;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, NULL, _NSIG / 8);
    errno = saved;
}

/* ---- waiting again with the program's mask ------------------------------------ */

/* The ways to wait again, each with a signal mask given atomically. */
enum wait_kind { WAIT_PPOLL, WAIT_PSELECT, WAIT_EPOLL, WAIT_EPOLL2,
                 WAIT_SUSPEND };

struct wait {
    enum wait_kind kind;
    const struct timespec *deadline; /* CLOCK_MONOTONIC; NULL: none */
    const sigset_t *mask;            /* the program's; NULL: its own mask */
    struct pollfd *fds;
    nfds_t nfds;
    int nsel;
    fd_set *rd, *wr, *ex;
    int epfd, maxevents;
    struct epoll_event *events;
};

/* After a first call that only our signals ended with EINTR: waits again
 * for what is left of W, as long as only our signals end the wait.
 * Returns what the last wait returned; errno SAVED when it succeeded. */
static int wait_again(const struct wait *w, struct seen *s, int saved)
{
    sigset_t old;
    int r;
    block_all(&old);
    const sigset_t *mask = w->mask ? w->mask : &old;
    for (;;) {
        /* A program signal came since the call ended: its handler ran,
         * and untraced it would have ended the call. */
        if (program_since(s)) {
            errno = EINTR;
            r = -1;
            break;
        }
        struct timespec left, *lp = NULL;
        if (w->deadline) {
            left = time_left_until(w->deadline);
            lp = &left;
        }
        switch (w->kind) {
        case WAIT_PPOLL:
            r = REAL(ppoll_fn, R_PPOLL)(w->fds, w->nfds, lp, mask);
            break;
        case WAIT_PSELECT:
            r = REAL(pselect_fn, R_PSELECT)(w->nsel, w->rd, w->wr, w->ex, lp,
                                           mask);
            break;
        case WAIT_EPOLL:
            r = REAL(epoll_pwait_fn, R_EPOLL_PWAIT)(
                w->epfd, w->events, w->maxevents, ms_left_until(w->deadline), mask);
            break;
        case WAIT_EPOLL2:
            r = REAL(epoll_pwait2_fn, R_EPOLL_PWAIT2)(w->epfd, w->events,
                                                     w->maxevents, lp, mask);
            break;
        default:
            r = REAL(sigsuspend_fn, R_SIGSUSPEND)(mask);
            break;
        }
        if (r >= 0) {
            errno = saved;
            break;
        }
        if (errno != EINTR || !only_ours_since(s))
            break;
    }
    set_mask(&old);
    return r;
}

/* The slow paths, out of line: a wrapper's own frame stays as small as
 * libc's (a conservative scan reads the stack of a thread that waits). */
#define SLOW __attribute__((noinline, cold))

static SLOW int resume_ppoll(struct pollfd *fds, nfds_t nfds,
                             const struct timespec *deadline,
                             const sigset_t *mask, struct seen *s, int saved)
{
    struct wait w = { .kind = WAIT_PPOLL, .deadline = deadline, .mask = mask,
                      .fds = fds, .nfds = nfds };
    return wait_again(&w, s, saved);
}

static SLOW int resume_pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
                               const struct timespec *deadline,
                               const sigset_t *mask, struct seen *s, int saved)
{
    struct wait w = { .kind = WAIT_PSELECT, .deadline = deadline,
                      .mask = mask, .nsel = nfds, .rd = rd, .wr = wr,
                      .ex = ex };
    return wait_again(&w, s, saved);
}

static SLOW int resume_epoll(enum wait_kind kind, int epfd,
                             struct epoll_event *events, int maxevents,
                             const struct timespec *deadline,
                             const sigset_t *mask, struct seen *s, int saved)
{
    struct wait w = { .kind = kind, .deadline = deadline, .mask = mask,
                      .epfd = epfd, .events = events,
                      .maxevents = maxevents };
    return wait_again(&w, s, saved);
}

static SLOW int resume_suspend(const sigset_t *mask, struct seen *s,
                               int saved)
{
    struct wait w = { .kind = WAIT_SUSPEND, .mask = mask };
    return wait_again(&w, s, saved);
}

/* ---- sleeps ------------------------------------------------------------------ */

/* The rest of a sleep that only our signals ended, *OUT left of it. */
static SLOW int sleep_rest(struct timespec *out, struct seen *s, int saved)
{
    /* nanosleep measures CLOCK_MONOTONIC: the rest is a ppoll. */
    struct timespec deadline = time_after(deadline_now(), *out);
    int r = resume_ppoll(NULL, 0, &deadline, NULL, s, saved);
    if (r > 0)
        r = 0;
    if (r < 0 && errno == EINTR)
        *out = time_left_until(&deadline);
    return r;
}

/* nanosleep that resumes after our signals.  OUT: the time left (never
 * NULL).  Returns 0, or -1 with errno. */
static int sleep_resuming(const struct timespec *req, struct timespec *out)
{
    nanosleep_fn fn = REAL(nanosleep_fn, R_NANOSLEEP);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(req, out);
    if (r == 0 || errno != EINTR || !only_ours_since(&s))
        return r;
    return sleep_rest(out, &s, saved);
}

MT_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
    struct timespec left;
    return sleep_resuming(req, rem ? rem : &left);
}

MT_EXPORT int usleep(useconds_t usec)
{
    struct timespec ts = { (time_t)(usec / 1000000),
                           (long)(usec % 1000000) * 1000 };
    return sleep_resuming(&ts, &ts);
}

/* As glibc's: the whole seconds left when a signal ends it, else 0 with
 * errno as it was. */
MT_EXPORT unsigned int sleep(unsigned int seconds)
{
    int saved = errno;
    struct timespec ts = { (time_t)seconds, 0 };
    if (sleep_resuming(&ts, &ts) < 0)
        return (unsigned int)ts.tv_sec;
    errno = saved;
    return 0;
}

static SLOW int clock_sleep_rest(clock_nanosleep_fn fn, clockid_t clock,
                                 int flags, const struct timespec *req,
                                 struct timespec *out, struct seen *s,
                                 int saved)
{
    int r, absolute = flags & TIMER_ABSTIME;
    if (clock == CLOCK_MONOTONIC || (clock == CLOCK_REALTIME && !absolute)) {
        /* Measured as ppoll measures: the rest is a ppoll. */
        struct timespec deadline = absolute ? *req : time_after(deadline_now(), *out);
        r = resume_ppoll(NULL, 0, &deadline, NULL, s, saved) >= 0 ? 0 : errno;
        if (r == EINTR && !absolute)
            *out = time_left_until(&deadline);
        errno = saved; /* clock_nanosleep says its error, not in errno */
        return r;
    }
    /* Another clock: the same call again (see the top of the file). */
    do {
        struct timespec again = *out;
        r = fn(clock, flags, absolute ? req : &again, out);
    } while (r == EINTR && only_ours_since(s));
    return r;
}

MT_EXPORT int clock_nanosleep(clockid_t clock, int flags,
                              const struct timespec *req,
                              struct timespec *rem)
{
    clock_nanosleep_fn fn = REAL(clock_nanosleep_fn, R_CLOCK_NANOSLEEP);
    if (fn == NULL)
        return ENOSYS;
    struct timespec left, *out = rem ? rem : &left;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(clock, flags, req, out);
    if (r != EINTR || !only_ours_since(&s))
        return r;
    return clock_sleep_rest(fn, clock, flags, req, out, &s, saved);
}

/* C11's, on glibc's clock_nanosleep (CLOCK_REALTIME, relative): 0, -1
 * when a signal ended it, -2 on an error. */
MT_EXPORT int thrd_sleep(const struct timespec *duration,
                         struct timespec *remaining)
{
    clock_nanosleep_fn fn = REAL(clock_nanosleep_fn, R_CLOCK_NANOSLEEP);
    if (fn == NULL)
        return -2;
    struct timespec left, *out = remaining ? remaining : &left;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(CLOCK_REALTIME, 0, duration, out);
    if (r == EINTR && only_ours_since(&s))
        r = clock_sleep_rest(fn, CLOCK_REALTIME, 0, duration, out, &s, saved);
    return r == 0 ? 0 : r == EINTR ? -1 : -2;
}

/* ---- waiting for a signal ------------------------------------------------------ */

MT_EXPORT int pause(void)
{
    pause_fn fn = REAL(pause_fn, R_PAUSE);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn();
    if (errno != EINTR || !only_ours_since(&s))
        return r;
    return resume_suspend(NULL, &s, saved);
}

MT_EXPORT int sigsuspend(const sigset_t *mask)
{
    sigsuspend_fn fn = REAL(sigsuspend_fn, R_SIGSUSPEND);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(mask);
    if (errno != EINTR || !only_ours_since(&s))
        return r;
    return resume_suspend(mask, &s, saved);
}

/* No call waits for a signal with a mask given atomically: the counts are
 * checked just before each call. */
MT_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info,
                           const struct timespec *timeout)
{
    sigtimedwait_fn fn = REAL(sigtimedwait_fn, R_SIGTIMEDWAIT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline;
    int resumable = deadline_of(timeout, &d, &deadline);
    int saved = errno;
    int r = fn(set, info, timeout);
    while (r < 0 && errno == EINTR && resumable && only_ours_since(&s)) {
        struct timespec left;
        if (deadline)
            left = time_left_until(deadline);
        errno = saved;
        r = fn(set, info, deadline ? &left : NULL);
    }
    return r;
}

MT_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
    sigwaitinfo_fn fn = REAL(sigwaitinfo_fn, R_SIGWAITINFO);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(set, info);
    while (r < 0 && errno == EINTR && only_ours_since(&s)) {
        errno = saved;
        r = fn(set, info);
    }
    return r;
}

/* ---- waiting for descriptors ------------------------------------------------- */

MT_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    poll_fn fn = REAL(poll_fn, R_POLL);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline = timeout > 0 ? deadline_of_ms(timeout, &d)
                                                  : NULL;
    int saved = errno;
    int r = fn(fds, nfds, timeout);
    if (r >= 0 || errno != EINTR || timeout == 0 || !only_ours_since(&s))
        return r;
    return resume_ppoll(fds, nfds, deadline, NULL, &s, saved);
}

/* _FORTIFY_SOURCE's poll. */
MT_EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout,
                         size_t fdslen)
{
    poll_chk_fn fn = REAL(poll_chk_fn, R_POLL_CHK);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline = timeout > 0 ? deadline_of_ms(timeout, &d)
                                                  : NULL;
    int saved = errno;
    int r = fn(fds, nfds, timeout, fdslen);
    if (r >= 0 || errno != EINTR || timeout == 0 || !only_ours_since(&s))
        return r;
    return resume_ppoll(fds, nfds, deadline, NULL, &s, saved);
}

MT_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds,
                    const struct timespec *timeout, const sigset_t *mask)
{
    ppoll_fn fn = REAL(ppoll_fn, R_PPOLL);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    /* glibc keeps the kernel's time left from us: a deadline. */
    struct timespec d;
    const struct timespec *deadline;
    int resumable = deadline_of(timeout, &d, &deadline);
    int saved = errno;
    int r = fn(fds, nfds, timeout, mask);
    if (r >= 0 || errno != EINTR || !resumable || !only_ours_since(&s))
        return r;
    return resume_ppoll(fds, nfds, deadline, mask, &s, saved);
}

MT_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds,
                          const struct timespec *timeout,
                          const sigset_t *mask, size_t fdslen)
{
    ppoll_chk_fn fn = REAL(ppoll_chk_fn, R_PPOLL_CHK);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline;
    int resumable = deadline_of(timeout, &d, &deadline);
    int saved = errno;
    int r = fn(fds, nfds, timeout, mask, fdslen);
    if (r >= 0 || errno != EINTR || !resumable || !only_ours_since(&s))
        return r;
    return resume_ppoll(fds, nfds, deadline, mask, &s, saved);
}

/* Linux's select leaves the time left in *TIMEOUT (glibc's too): the
 * deadline comes from it, and it is left there again at the end. */
MT_EXPORT int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
                     struct timeval *timeout)
{
    select_fn fn = REAL(select_fn, R_SELECT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(nfds, rd, wr, ex, timeout);
    if (r >= 0 || errno != EINTR || !only_ours_since(&s))
        return r;
    struct timespec d, *deadline = NULL;
    if (timeout) {
        struct timespec left = { timeout->tv_sec, timeout->tv_usec * 1000 };
        d = time_after(deadline_now(), left);
        deadline = &d;
    }
    r = resume_pselect(nfds, rd, wr, ex, deadline, NULL, &s, saved);
    if (timeout) {
        struct timespec left = time_left_until(deadline);
        timeout->tv_sec = left.tv_sec;
        timeout->tv_usec = left.tv_nsec / 1000;
    }
    return r;
}

MT_EXPORT int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
                      const struct timespec *timeout, const sigset_t *mask)
{
    pselect_fn fn = REAL(pselect_fn, R_PSELECT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline;
    int resumable = deadline_of(timeout, &d, &deadline);
    int saved = errno;
    int r = fn(nfds, rd, wr, ex, timeout, mask);
    if (r >= 0 || errno != EINTR || !resumable || !only_ours_since(&s))
        return r;
    return resume_pselect(nfds, rd, wr, ex, deadline, mask, &s, saved);
}

MT_EXPORT int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
                         int timeout)
{
    epoll_wait_fn fn = REAL(epoll_wait_fn, R_EPOLL_WAIT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline = timeout > 0 ? deadline_of_ms(timeout, &d)
                                                  : NULL;
    int saved = errno;
    int r = fn(epfd, events, maxevents, timeout);
    if (r >= 0 || errno != EINTR || timeout == 0 || !only_ours_since(&s))
        return r;
    return resume_epoll(WAIT_EPOLL, epfd, events, maxevents, deadline, NULL,
                        &s, saved);
}

MT_EXPORT int epoll_pwait(int epfd, struct epoll_event *events, int maxevents,
                          int timeout, const sigset_t *mask)
{
    epoll_pwait_fn fn = REAL(epoll_pwait_fn, R_EPOLL_PWAIT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline = timeout > 0 ? deadline_of_ms(timeout, &d)
                                                  : NULL;
    int saved = errno;
    int r = fn(epfd, events, maxevents, timeout, mask);
    if (r >= 0 || errno != EINTR || timeout == 0 || !only_ours_since(&s))
        return r;
    return resume_epoll(WAIT_EPOLL, epfd, events, maxevents, deadline, mask,
                        &s, saved);
}

MT_EXPORT int epoll_pwait2(int epfd, struct epoll_event *events,
                           int maxevents, const struct timespec *timeout,
                           const sigset_t *mask)
{
    epoll_pwait2_fn fn = REAL(epoll_pwait2_fn, R_EPOLL_PWAIT2);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    struct timespec d;
    const struct timespec *deadline;
    int resumable = deadline_of(timeout, &d, &deadline);
    int saved = errno;
    int r = fn(epfd, events, maxevents, timeout, mask);
    if (r >= 0 || errno != EINTR || !resumable || !only_ours_since(&s))
        return r;
    return resume_epoll(WAIT_EPOLL2, epfd, events, maxevents, deadline, mask,
                        &s, saved);
}

/* ---- semaphores ---------------------------------------------------------------- */

/* A futex wait with a timeout ends with EINTR under a handler (glibc's
 * other timed waits try again themselves; sem_wait is restarted by
 * SA_RESTART).  The timeout is absolute: the same call again. */
MT_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    sem_timedwait_fn fn = REAL(sem_timedwait_fn, R_SEM_TIMEDWAIT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(sem, abstime);
    while (r < 0 && errno == EINTR && only_ours_since(&s)) {
        errno = saved;
        r = fn(sem, abstime);
    }
    return r;
}

MT_EXPORT int sem_clockwait(sem_t *sem, clockid_t clock,
                            const struct timespec *abstime)
{
    sem_clockwait_fn fn = REAL(sem_clockwait_fn, R_SEM_CLOCKWAIT);
    if (fn == NULL)
        return -1;
    struct seen s = seen_now();
    int saved = errno;
    int r = fn(sem, clock, abstime);
    while (r < 0 && errno == EINTR && only_ours_since(&s)) {
        errno = saved;
        r = fn(sem, clock, abstime);
    }
    return r;
}
