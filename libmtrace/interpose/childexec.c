/* SPDX-License-Identifier: GPL-3.0-or-later */
/* childexec.c - the environment a started program gets with children=0
 * (see childexec.h), for exec.c's and spawn.c's wrappers.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "interpose/childexec.h"
#include "base/childenv.h"
#include "base/config.h"
#include "base/guard.h"
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* This library's path as the loader has it (dladdr at load time; never
 * looked up in an exec wrapper, which may run in a vfork child). */
static char self_path[4096] = "libmtrace.so";

__attribute__((constructor)) static void note_self(void)
{
    GUARD_SCOPE(entered);
    Dl_info info;
    if (dladdr((void *)note_self, &info) && info.dli_fname &&
        strlen(info.dli_fname) < sizeof self_path)
        strcpy(self_path, info.dli_fname);
}

/* Beyond these bytes (some 2000 variables), the new environment's memory
 * is mapped, not taken from a stack that may be a small thread's (and
 * stays mapped in the parent of a vfork child whose exec succeeded). */
enum { STACK_ENV_MAX = 1 << 14 };

/* CALL(CTX, ENV): the exec, with ENV the environment the new program
 * gets: ENVP as it is, or with children=0 without libmtrace. */
int with_child_env(char *const *envp,
                   int (*call)(void *ctx, char *const *env), void *ctx)
{
    if (mt_config.children)
        return call(ctx, envp);
    size_t n = childenv_count(envp) + 1;
    size_t len = childenv_preload_size(envp) + 1;
    size_t bytes = n * sizeof(char *) + len;
    if (bytes > STACK_ENV_MAX) {
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return -1; /* errno: ENOMEM, as the exec would say */
        char **env = m;
        childenv_strip(envp, self_path, env, (char *)(env + n));
        int r = call(ctx, env);
        int saved = errno;
        munmap(m, bytes);
        errno = saved;
        return r;
    }
    char *env[n];
    char buf[len];
    childenv_strip(envp, self_path, env, buf);
    return call(ctx, env);
}

