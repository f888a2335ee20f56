/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sysfd.h - descriptors for the library's own use, by raw system calls.
 * libmtrace exports open(), close(), fcntl(), dup2() and the rest of the
 * descriptor calls (interpose/fds.c: MEMLEAK_CONFIG=fds=1 records them),
 * so its own code must never call those names: it would record its own
 * files as the program's.  These set errno as libc's do; none is a
 * cancellation point.
 */
#ifndef MT_SYSFD_H
#define MT_SYSFD_H
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int sys_open3(const char *path, int flags, int mode)
{
    return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

/* open(PATH, FLAGS) or open(PATH, FLAGS, MODE). */
#define SYS_OPEN_(path, flags, mode, ...) sys_open3(path, flags, mode)
#define sys_open(...) SYS_OPEN_(__VA_ARGS__, 0, 0)

static inline int sys_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}

static inline int sys_fcntl(int fd, int cmd, long arg)
{
    return (int)syscall(SYS_fcntl, fd, cmd, arg);
}

static inline int sys_dup2(int fd, int to)
{
    return fd == to ? fd : (int)syscall(SYS_dup3, fd, to, 0);
}

#endif
