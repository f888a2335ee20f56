/* SPDX-License-Identifier: GPL-3.0-or-later */
/* exec.c - an exec() replaces the process image and with it our buffered
 * log lines: these wrappers write the log out first.  glibc's exec family
 * calls execve internally (not through the PLT), so each public member is
 * wrapped; the variadic execl* build their argument vector on the stack.
 * With children=0 (config.h) the new program gets an environment without
 * libmtrace (childenv.h), built on the stack: the wrappers may run in a
 * vfork child, where neither the heap nor a lock is ours to take.
 */
#define _GNU_SOURCE
#include "base/export.h"
#include "base/guard.h"
#include "base/config.h"
#include "base/real.h"
#include "interpose/childexec.h"
#include "interpose/fds.h"
#include "../include/mtrace-format.h"
#include "log/tracelog.h"
#include "scan/periodic.h"
#include "track/livemode.h"
#include "track/tracer.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

extern char **environ;

#define MAX_EXECL_ARGS 4096 /* on the stack: 32 KiB */

/* The image that execs is gone with its heap: what it still holds is not
 * leaked, and the log says so ("#e exec"; a failed exec logs on). */
static inline __attribute__((always_inline)) void flush_before_exec(void)
{
    GUARD_SCOPE(entered);
    if (entered && tracer_started()) {
        periodic_pause(); /* no scan's records after "#e exec" */
        /* fds=1: close-on-exec descriptors end here (fds.h). */
        fds_before_exec(__builtin_return_address(0));
        if (tracer_active())
            livemode_write(); /* a live log's blocks, as a full log has them */
        tracelog_end(MTF_END_EXEC, 0, 0);
    }
}

/* The exec failed: the image logs on as before. */
static int exec_failed(int result)
{
    int saved = errno;
    {
        GUARD_SCOPE(entered);
        if (entered && tracer_started()) {
            tracelog_exec_failed();
            periodic_resume();
        }
        tracelog_exec_over();
    }
    errno = saved;
    return result;
}

#define REAL(name, type)                                                       \
    static type real_##name;                                                   \
    if (real_##name == NULL)                                                   \
    real_##name = (type)real_next_symbol(#name)

typedef int (*exec_env_fn)(const char *, char *const[], char *const[]);
typedef int (*exec_fn)(const char *, char *const[]);

/* The arguments of an exec whose environment is chosen last. */
struct exec_call {
    const char *path;
    char *const *argv;
    int fd;
    int (*real)(const char *, char *const[], char *const[]);
    int (*real_fd)(int, char *const[], char *const[]);
};

static int call_exec(void *ctx, char *const *env)
{
    struct exec_call *c = ctx;
    if (c->real_fd)
        return c->real_fd(c->fd, c->argv, env);
    return c->real(c->path, c->argv, env);
}

/* Every wrapper: the log finished, the exec, the log on if it failed. */
static int exec_with(struct exec_call *c, char *const *envp)
{
    flush_before_exec();
    return exec_failed(with_child_env(envp, call_exec, c));
}

MT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    REAL(execve, exec_env_fn);
    struct exec_call c = { .path = path, .argv = argv, .real = real_execve };
    return exec_with(&c, envp);
}

/* execv and execvp use the process's environment: with children=1 they
 * are called as they are (execvp's search of PATH stays glibc's); with
 * children=0 they become execve and execvpe with the new one. */
MT_EXPORT int execv(const char *path, char *const argv[])
{
    REAL(execv, exec_fn);
    REAL(execve, exec_env_fn);
    if (mt_config.children) {
        flush_before_exec();
        return exec_failed(real_execv(path, argv));
    }
    struct exec_call c = { .path = path, .argv = argv, .real = real_execve };
    return exec_with(&c, environ);
}

MT_EXPORT int execvp(const char *file, char *const argv[])
{
    REAL(execvp, exec_fn);
    REAL(execvpe, exec_env_fn);
    if (mt_config.children) {
        flush_before_exec();
        return exec_failed(real_execvp(file, argv));
    }
    struct exec_call c = { .path = file, .argv = argv, .real = real_execvpe };
    return exec_with(&c, environ);
}

MT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    REAL(execvpe, exec_env_fn);
    struct exec_call c = { .path = file, .argv = argv, .real = real_execvpe };
    return exec_with(&c, envp);
}

MT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    typedef int (*fexec_fn)(int, char *const[], char *const[]);
    REAL(fexecve, fexec_fn);
    struct exec_call c = { .fd = fd, .argv = argv, .real_fd = real_fexecve };
    return exec_with(&c, envp);
}

/* Fills ARGV from ARG0 and the variadic arguments up to their NULL.
 * Returns 0, or -1 with errno E2BIG when there are too many. */
static int collect_args(char **argv, const char *arg0, va_list *ap)
{
    size_t n = 0;
    argv[0] = (char *)arg0;
    while (argv[n] != NULL) {
        if (++n == MAX_EXECL_ARGS) {
            errno = E2BIG;
            return -1;
        }
        argv[n] = va_arg(*ap, char *);
    }
    return 0;
}

MT_EXPORT int execl(const char *path, const char *arg, ...)
{
    char *argv[MAX_EXECL_ARGS + 1];
    va_list ap;
    va_start(ap, arg);
    int ok = collect_args(argv, arg, &ap) == 0;
    va_end(ap);
    return ok ? execv(path, argv) : -1;
}

MT_EXPORT int execlp(const char *file, const char *arg, ...)
{
    char *argv[MAX_EXECL_ARGS + 1];
    va_list ap;
    va_start(ap, arg);
    int ok = collect_args(argv, arg, &ap) == 0;
    va_end(ap);
    return ok ? execvp(file, argv) : -1;
}

MT_EXPORT int execle(const char *path, const char *arg, ...)
{
    char *argv[MAX_EXECL_ARGS + 1];
    va_list ap;
    va_start(ap, arg);
    int ok = collect_args(argv, arg, &ap) == 0;
    char *const *envp = ok ? va_arg(ap, char *const *) : NULL;
    va_end(ap);
    return ok ? execve(path, argv, envp) : -1;
}
