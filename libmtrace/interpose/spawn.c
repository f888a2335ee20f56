/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spawn.c - posix_spawn() and posix_spawnp() start a new program as an
 * exec does, but glibc's child runs its own code and calls execve
 * internally, past exec.c's wrappers.  With children=0 (config.h) the new
 * program must run untraced: these wrappers hand glibc an environment
 * without libmtrace (childexec.h); otherwise they only pass the call on.  (system() and popen() reach glibc's spawn by an
 * internal call: what they start is traced whatever children= says.)
 */
#define _GNU_SOURCE
#include "base/export.h"
#include "base/real.h"
#include "interpose/childexec.h"
#include <errno.h>
#include <spawn.h>

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[],
                        char *const[]);

/* The arguments of a spawn whose environment is chosen last. */
struct spawn_call {
    spawn_fn real;
    pid_t *pid;
    const char *path;
    const posix_spawn_file_actions_t *fa;
    const posix_spawnattr_t *attr;
    char *const *argv;
};

static int call_spawn(void *ctx, char *const *env)
{
    struct spawn_call *c = ctx;
    return c->real(c->pid, c->path, c->fa, c->attr, c->argv, env);
}

/* posix_spawn's result is an error number, not -1 and errno. */
static int spawn_with(struct spawn_call *c, char *const envp[])
{
    int saved = errno;
    int r = with_child_env(envp, call_spawn, c);
    if (r == -1) {
        r = errno;
        errno = saved;
    }
    return r;
}

MT_EXPORT int posix_spawn(pid_t *pid, const char *path,
                          const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[],
                          char *const envp[])
{
    static spawn_fn real;
    if (real == NULL)
        real = (spawn_fn)real_next_symbol("posix_spawn");
    struct spawn_call c = { .real = real, .pid = pid, .path = path, .fa = fa,
                            .attr = attr, .argv = argv };
    return spawn_with(&c, envp);
}

MT_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                           const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[],
                           char *const envp[])
{
    static spawn_fn real;
    if (real == NULL)
        real = (spawn_fn)real_next_symbol("posix_spawnp");
    struct spawn_call c = { .real = real, .pid = pid, .path = file, .fa = fa,
                            .attr = attr, .argv = argv };
    return spawn_with(&c, envp);
}
