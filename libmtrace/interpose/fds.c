/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fds.c - file descriptors as resources (MEMLEAK_CONFIG=fds=1): every
 * exported call that makes a descriptor logs "#r + fd N" with its stack
 * after the real call, every call that ends one logs "#r - fd N" before
 * it (so a number another thread gets next is logged after its release).
 * Only descriptors recorded here are released (track/fdtab.h): 0-2, the
 * inherited ones and libc's or libmtrace's own are never in the log.
 *
 * With fds=0 (the default) each wrapper is one test and a call through a
 * pointer to libc's function.  glibc's own functions call each other
 * inside libc (fopen does not call our open); should one reach us, the
 * per-thread `nested` count keeps a call made inside another wrapper from
 * counting twice.  errno is what the real call left.  No malloc, no stdio
 * here (fileno() reads a field), and libmtrace's own code never calls
 * these names (base/sysfd.h).
 */
#undef _FORTIFY_SOURCE /* we define open() itself, not fortify's inline */
#define _GNU_SOURCE
#include "interpose/fds.h"
#include "../include/mtrace-format.h"
#include "base/config.h"
#include "base/export.h"
#include "base/guard.h"
#include "base/real.h"
#include "base/sysfd.h"
#include "track/fdtab.h"
#include "track/resource.h"
#include "track/tracer.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define CALLER __builtin_return_address(0)

/* REAL(name, type...): the type may hold commas. */
#define REAL(name, ...)                                                        \
    static __typeof__(__VA_ARGS__) real_##name;                                \
    if (__builtin_expect(real_##name == NULL, 0))                              \
    real_##name = (__typeof__(real_##name))real_next_symbol(#name)

static __thread int nested __attribute__((tls_model("initial-exec")));

/* Whether this call is to be recorded: decided before the real call. */
static inline int wanted(void)
{
    return __builtin_expect(mt_config.fds != 0, 0) && tracer_active() &&
           !guard_is_set() && !nested;
}

/* FD was made (a number we had recorded and missed the close of is
 * released first). */
static __attribute__((noinline)) void acquired(int fd, const void *caller)
{
    if (fd < FDTAB_FIRST || fd >= FDTAB_MAX)
        return;
    int saved = errno;
    guard_enter();
    if (fdtab_set(fd))
        resource_event(MTF_RES_RELEASE, MTF_RES_KIND_FD, (uint64_t)fd, caller);
    resource_event(MTF_RES_ACQUIRE, MTF_RES_KIND_FD, (uint64_t)fd, caller);
    guard_leave();
    errno = saved;
}

/* FD is about to be closed. */
static __attribute__((noinline)) void released(int fd, const void *caller)
{
    int saved = errno;
    guard_enter();
    if (fdtab_clear(fd))
        resource_event(MTF_RES_RELEASE, MTF_RES_KIND_FD, (uint64_t)fd, caller);
    guard_leave();
    errno = saved;
}

static inline int made(int fd, int on, const void *caller)
{
    if (on && fd >= 0)
        acquired(fd, caller);
    return fd;
}

static inline void closing(int fd, const void *caller)
{
    if (wanted() && fdtab_has(fd))
        released(fd, caller);
}

/* Recorded descriptors in [FIRST, LAST] released, in runs. */
static __attribute__((noinline)) void released_range(unsigned first,
                                                     unsigned last,
                                                     const void *caller)
{
    uint64_t ids[64];
    int n, saved = errno;
    guard_enter();
    do {
        n = fdtab_take_range(first, last, ids, 64);
        if (n)
            resource_events(MTF_RES_RELEASE, MTF_RES_KIND_FD, ids, n, caller);
    } while (n == 64);
    guard_leave();
    errno = saved;
}

void fds_before_exec(const void *caller)
{
    if (!mt_config.fds || !tracer_active())
        return;
    for (int fd = fdtab_next(0); fd >= 0; fd = fdtab_next(fd + 1)) {
        int flags = sys_fcntl(fd, F_GETFD, 0);
        if ((flags >= 0 && !(flags & FD_CLOEXEC)) || !fdtab_clear(fd))
            continue;
        /* Close-on-exec, or already closed behind our back. */
        resource_event(MTF_RES_RELEASE, MTF_RES_KIND_FD, (uint64_t)fd, caller);
    }
}

/* ---- opening files -------------------------------------------------- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static mode_t mode_arg(int flags, va_list *ap)
{
    return __OPEN_NEEDS_MODE(flags) ? va_arg(*ap, mode_t) : 0;
}

#define OPEN_WRAPPER(name)                                                     \
    MT_EXPORT int name(const char *path, int flags, ...)                       \
    {                                                                          \
        va_list ap;                                                            \
        va_start(ap, flags);                                                   \
        mode_t mode = mode_arg(flags, &ap);                                    \
        va_end(ap);                                                            \
        REAL(name, open_fn);                                                   \
        int on = wanted();                                                     \
        return made(real_##name(path, flags, mode), on, CALLER);               \
    }

#define OPENAT_WRAPPER(name)                                                   \
    MT_EXPORT int name(int dir, const char *path, int flags, ...)              \
    {                                                                          \
        va_list ap;                                                            \
        va_start(ap, flags);                                                   \
        mode_t mode = mode_arg(flags, &ap);                                    \
        va_end(ap);                                                            \
        REAL(name, openat_fn);                                                 \
        int on = wanted();                                                     \
        return made(real_##name(dir, path, flags, mode), on, CALLER);          \
    }

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

/* _FORTIFY_SOURCE's checked opens (no mode). */
#define OPEN2_WRAPPER(name)                                                    \
    MT_EXPORT int name(const char *path, int flags)                            \
    {                                                                          \
        REAL(name, int (*)(const char *, int));                                \
        int on = wanted();                                                     \
        return made(real_##name(path, flags), on, CALLER);                     \
    }
#define OPENAT2_WRAPPER(name)                                                  \
    MT_EXPORT int name(int dir, const char *path, int flags)                   \
    {                                                                          \
        REAL(name, int (*)(int, const char *, int));                           \
        int on = wanted();                                                     \
        return made(real_##name(dir, path, flags), on, CALLER);                \
    }
int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);
OPEN2_WRAPPER(__open_2)
OPEN2_WRAPPER(__open64_2)
OPENAT2_WRAPPER(__openat_2)
OPENAT2_WRAPPER(__openat64_2)

#define CREAT_WRAPPER(name)                                                    \
    MT_EXPORT int name(const char *path, mode_t mode)                          \
    {                                                                          \
        REAL(name, int (*)(const char *, mode_t));                             \
        int on = wanted();                                                     \
        return made(real_##name(path, mode), on, CALLER);                      \
    }
CREAT_WRAPPER(creat)
CREAT_WRAPPER(creat64)

/* ---- streams -------------------------------------------------------- */

static int stream_fd(FILE *f)
{
    return f ? fileno(f) : -1;
}

#define FOPEN_WRAPPER(name)                                                    \
    MT_EXPORT FILE *name(const char *path, const char *how)                    \
    {                                                                          \
        REAL(name, FILE * (*)(const char *, const char *));                    \
        int on = wanted();                                                     \
        nested += on;                                                          \
        FILE *f = real_##name(path, how);                                      \
        nested -= on;                                                          \
        if (on && f)                                                           \
            acquired(stream_fd(f), CALLER);                                    \
        return f;                                                              \
    }
FOPEN_WRAPPER(fopen)
FOPEN_WRAPPER(fopen64)

/* The stream's old descriptor is closed, even when the reopening fails. */
#define FREOPEN_WRAPPER(name)                                                  \
    MT_EXPORT FILE *name(const char *path, const char *how, FILE *old)         \
    {                                                                          \
        REAL(name, FILE * (*)(const char *, const char *, FILE *));            \
        int on = wanted();                                                     \
        if (on && fdtab_has(stream_fd(old)))                                   \
            released(stream_fd(old), CALLER);                                  \
        nested += on;                                                          \
        FILE *f = real_##name(path, how, old);                                 \
        nested -= on;                                                          \
        if (on && f)                                                           \
            acquired(stream_fd(f), CALLER);                                    \
        return f;                                                              \
    }
FREOPEN_WRAPPER(freopen)
FREOPEN_WRAPPER(freopen64)

MT_EXPORT int fclose(FILE *f)
{
    REAL(fclose, int (*)(FILE *));
    closing(stream_fd(f), CALLER);
    return real_fclose(f);
}

/* ---- sockets, pipes and the other makers ----------------------------- */

MT_EXPORT int socket(int domain, int type, int protocol)
{
    REAL(socket, int (*)(int, int, int));
    int on = wanted();
    return made(real_socket(domain, type, protocol), on, CALLER);
}

/* The two descriptors of a pipe or a socket pair. */
static int made_pair(int r, const int fds[2], int on, const void *caller)
{
    if (on && r == 0) {
        acquired(fds[0], caller);
        acquired(fds[1], caller);
    }
    return r;
}

MT_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
    REAL(socketpair, int (*)(int, int, int, int *));
    int on = wanted();
    return made_pair(real_socketpair(domain, type, protocol, sv), sv, on,
                     CALLER);
}

MT_EXPORT int pipe(int fds[2])
{
    REAL(pipe, int (*)(int *));
    int on = wanted();
    return made_pair(real_pipe(fds), fds, on, CALLER);
}

MT_EXPORT int pipe2(int fds[2], int flags)
{
    REAL(pipe2, int (*)(int *, int));
    int on = wanted();
    return made_pair(real_pipe2(fds, flags), fds, on, CALLER);
}

MT_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    REAL(accept, int (*)(int, struct sockaddr *, socklen_t *));
    int on = wanted();
    return made(real_accept(fd, addr, len), on, CALLER);
}

MT_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    REAL(accept4, int (*)(int, struct sockaddr *, socklen_t *, int));
    int on = wanted();
    return made(real_accept4(fd, addr, len, flags), on, CALLER);
}

MT_EXPORT int dup(int fd)
{
    REAL(dup, int (*)(int));
    int on = wanted();
    return made(real_dup(fd), on, CALLER);
}

/* dup2 and dup3 close TO if it was open: made() releases a recorded one
 * first.  TO is never free in between, so no other thread can get it. */
MT_EXPORT int dup2(int fd, int to)
{
    REAL(dup2, int (*)(int, int));
    int on = wanted() && fd != to;
    return made(real_dup2(fd, to), on, CALLER);
}

MT_EXPORT int dup3(int fd, int to, int flags)
{
    REAL(dup3, int (*)(int, int, int));
    int on = wanted();
    return made(real_dup3(fd, to, flags), on, CALLER);
}

/* The argument is read as glibc's fcntl reads it: one word. */
#define FCNTL_WRAPPER(name)                                                    \
    MT_EXPORT int name(int fd, int cmd, ...)                                   \
    {                                                                          \
        va_list ap;                                                            \
        va_start(ap, cmd);                                                     \
        void *arg = va_arg(ap, void *);                                        \
        va_end(ap);                                                            \
        REAL(name, int (*)(int, int, ...));                                    \
        int on = (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && wanted();       \
        return made(real_##name(fd, cmd, arg), on, CALLER);                    \
    }
int fcntl64(int, int, ...);
FCNTL_WRAPPER(fcntl)
FCNTL_WRAPPER(fcntl64)

MT_EXPORT int eventfd(unsigned int count, int flags)
{
    REAL(eventfd, int (*)(unsigned int, int));
    int on = wanted();
    return made(real_eventfd(count, flags), on, CALLER);
}

/* A new descriptor only when FD is -1 (else FD's mask changes). */
MT_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
    REAL(signalfd, int (*)(int, const sigset_t *, int));
    int on = fd == -1 && wanted();
    return made(real_signalfd(fd, mask, flags), on, CALLER);
}

MT_EXPORT int timerfd_create(int clock, int flags)
{
    REAL(timerfd_create, int (*)(int, int));
    int on = wanted();
    return made(real_timerfd_create(clock, flags), on, CALLER);
}

MT_EXPORT int epoll_create(int size)
{
    REAL(epoll_create, int (*)(int));
    int on = wanted();
    return made(real_epoll_create(size), on, CALLER);
}

MT_EXPORT int epoll_create1(int flags)
{
    REAL(epoll_create1, int (*)(int));
    int on = wanted();
    return made(real_epoll_create1(flags), on, CALLER);
}

MT_EXPORT int inotify_init(void)
{
    REAL(inotify_init, int (*)(void));
    int on = wanted();
    return made(real_inotify_init(), on, CALLER);
}

MT_EXPORT int inotify_init1(int flags)
{
    REAL(inotify_init1, int (*)(int));
    int on = wanted();
    return made(real_inotify_init1(flags), on, CALLER);
}

MT_EXPORT int memfd_create(const char *name, unsigned int flags)
{
    REAL(memfd_create, int (*)(const char *, unsigned int));
    int on = wanted();
    return made(real_memfd_create(name, flags), on, CALLER);
}

/* ---- closing -------------------------------------------------------- */

MT_EXPORT int close(int fd)
{
    REAL(close, int (*)(int));
    closing(fd, CALLER);
    return real_close(fd);
}

MT_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
    REAL(close_range, int (*)(unsigned int, unsigned int, int));
    if (!((unsigned)flags & CLOSE_RANGE_CLOEXEC) && wanted())
        released_range(first, last, CALLER);
    return real_close_range(first, last, flags);
}
