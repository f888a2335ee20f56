/* SPDX-License-Identifier: GPL-3.0-or-later */
/* childenv.h - the environment of a program this process starts with
 * exec or posix_spawn when MEMLEAK_CONFIG has children=0 (mtrace-run
 * --trace-children=no, valgrind's semantics): libmtrace's own variables
 * removed, so that the new program runs untraced.  LD_PRELOAD loses the
 * words naming this library (the other preloads stay; a value left empty
 * is dropped), MEMLEAK_CONFIG and MALLOC_TRACE are dropped.  Fork
 * children of the same image keep the library and stay traced.
 *
 * Called in exec wrappers, possibly in a vfork child: no heap, no stdio,
 * no lock; the caller gives the memory (its stack).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MT_CHILDENV_H
#define MT_CHILDENV_H

#include <stddef.h>

/* The number of entries of ENVP (NULL: none). */
size_t childenv_count(char *const *envp);
/* The bytes the rewritten LD_PRELOAD entry needs, its NUL included
 * ("LD_PRELOAD=" and at most the old value); 0 without LD_PRELOAD. */
size_t childenv_preload_size(char *const *envp);
/* Whether the LD_PRELOAD word W (N bytes) names the library whose path
 * as loaded is SELF: the same file name, with or without a directory. */
int childenv_is_self(const char *w, size_t n, const char *self);
/* Fills OUT (childenv_count(ENVP) + 1 slots) with ENVP's entries but
 * libmtrace's, NULL-terminated; the new LD_PRELOAD entry, if any, is
 * written into BUF (childenv_preload_size(ENVP) bytes).  SELF: this
 * library's path as loaded. */
void childenv_strip(char *const *envp, const char *self, char **out,
                    char *buf);

#endif
