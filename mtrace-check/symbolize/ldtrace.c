/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ldtrace.c - ld.so's list of loaded objects (see ldtrace.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE /* pipe2 */
#include "symbolize/ldtrace.h"
#include "symbolize/elfinfo.h"
#include "read/fields.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int is_lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Does TAIL match / .(0x[0-9a-f]*).$/ starting at its first byte? */
static int tail_matches(const char *t, size_t n)
{
    if (n < 5 || t[0] != ' ' || t[2] != '0' || t[3] != 'x')
        return 0;
    for (size_t i = 4; i + 1 < n; i++)
        if (!is_lower_hex(t[i]))
            return 0;
    return 1;
}

/* Match "(.*) .(0x[0-9a-f]*).$" against REST: the greedy (.*) takes the
 * last space that leaves a matching tail. */
static int match_rest(struct slice rest, struct slice *path, struct slice *addr)
{
    for (size_t sp = rest.n; sp-- > 0;) {
        if (rest.p[sp] == ' ' && tail_matches(rest.p + sp, rest.n - sp)) {
            *path = (struct slice){ rest.p, sp };
            *addr = (struct slice){ rest.p + sp + 2, rest.n - sp - 3 };
            return 1;
        }
    }
    return 0;
}

void ldtrace_parse_line(struct slice line, struct strmap *map)
{
    struct slice path, addr;

    /* '.' does not match a newline; the line has none but be exact. */
    if (memchr(line.p, '\n', line.n))
        return;
    /* Greedy "^.*=> ": try the last "=> " first. */
    for (size_t i = line.n; i-- > 0;) {
        if (i + 3 > line.n || memcmp(line.p + i, "=> ", 3) != 0)
            continue;
        struct slice rest = { line.p + i + 3, line.n - i - 3 };
        if (match_rest(rest, &path, &addr)) {
            void **slot = strmap_put(map, path);
            uint64_t *v = *slot ? *slot : xmalloc(sizeof *v);
            *v = perl_hex(addr);
            *slot = v;
            return;
        }
    }
}

enum { LDTRACE_TIMEOUT_MS = 10000 };

/* The environment plus LD_TRACE_LOADED_OBJECTS=2, built before fork():
 * the reader thread may hold malloc's lock at that moment, so the child
 * must not allocate (no setenv) between fork() and exec. */
static char **traced_environment(void)
{
    extern char **environ;
    size_t n = 0;

    while (environ[n])
        n++;
    char **env = xmalloc((n + 2) * sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_TRACE_LOADED_OBJECTS=", 24) != 0)
            env[k++] = environ[i];
    env[k++] = "LD_TRACE_LOADED_OBJECTS=2";
    env[k] = NULL;
    return env;
}

static void run_child(const char *prog, int out_fd, char **env)
{
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, 0);
    dup2(out_fd, 1);
    char *const argv[] = { (char *)prog, NULL };
    execve(prog, argv, env);
    _exit(127);
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Read the child's whole output, giving up after a timeout so a program
 * that ignores LD_TRACE_LOADED_OBJECTS cannot hang us. */
static char *read_all(int fd, size_t *len, int *timed_out)
{
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    struct timespec t0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    *timed_out = 0;
    for (;;) {
        long left = LDTRACE_TIMEOUT_MS - elapsed_ms(&t0);
        struct pollfd p = { fd, POLLIN, 0 };
        if (left <= 0 || poll(&p, 1, (int)left) == 0) {
            *timed_out = 1;
            break;
        }
        if (n == cap)
            buf = xrealloc(buf, cap *= 2);
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    *len = n;
    return buf;
}

void ldtrace_start(const char *prog, struct ldtrace_run *run)
{
    struct elf_info info;
    int fds[2];

    run->pid = 0;
    if (elf_inspect(prog, &info) != 0 || !info.is_elf || !info.has_interp ||
        access(prog, X_OK) != 0 || pipe2(fds, O_CLOEXEC) != 0)
        return;
    char **env = traced_environment();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        run_child(prog, fds[1], env);
    free(env);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return;
    }
    run->pid = pid;
    run->fd = fds[0];
}

void ldtrace_collect(struct ldtrace_run *run, struct strmap *map)
{
    int timed_out;
    size_t len;

    if (!run->pid)
        return;
    char *out = read_all(run->fd, &len, &timed_out);
    close(run->fd);
    if (timed_out)
        kill(run->pid, SIGKILL);
    waitpid(run->pid, NULL, 0);
    run->pid = 0;
    /* Perl's chop drops the last byte of every line, newline or not. */
    for (size_t start = 0; start < len;) {
        char *nl = memchr(out + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - out) : len;
        size_t chopped = nl ? end - start : (end - start ? end - start - 1 : 0);
        ldtrace_parse_line((struct slice){ out + start, chopped }, map);
        start = nl ? end + 1 : len;
    }
    free(out);
}

void ldtrace_cancel(struct ldtrace_run *run)
{
    if (!run->pid)
        return;
    close(run->fd);
    kill(run->pid, SIGKILL);
    waitpid(run->pid, NULL, 0);
    run->pid = 0;
}
