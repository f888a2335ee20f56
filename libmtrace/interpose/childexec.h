/* SPDX-License-Identifier: GPL-3.0-or-later */
/* childexec.h - what exec.c and spawn.c call to start a program: with
 * MEMLEAK_CONFIG's children=1 (the default) the environment is passed on
 * as it is; with children=0 the new program gets it without libmtrace
 * (base/childenv.h: LD_PRELOAD without this library, no MEMLEAK_CONFIG,
 * no MALLOC_TRACE), so that it runs untraced.  The new environment is
 * built on the caller's stack: an exec wrapper may run in a vfork child.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MT_CHILDEXEC_H
#define MT_CHILDEXEC_H

/* Returns CALL(CTX, ENV), ENV the environment the new program gets for
 * ENVP; -1 with errno ENOMEM when the memory for it could not be had. */
int with_child_env(char *const *envp,
                   int (*call)(void *ctx, char *const *env), void *ctx);

#endif
