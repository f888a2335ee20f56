/* SPDX-License-Identifier: GPL-3.0-or-later */
/* childenv.c - libmtrace's variables taken out of an environment for a
 * program started untraced (see childenv.h).  String functions only: it
 * runs in exec wrappers, possibly in a vfork child.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/childenv.h"

#include <string.h>

static const char preload[] = "LD_PRELOAD=";

static int has_name(const char *entry, const char *name_eq)
{
    return strncmp(entry, name_eq, strlen(name_eq)) == 0;
}

size_t childenv_count(char *const *envp)
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n;
}

/* The last LD_PRELOAD entry is the one the loader reads (ld.so goes
 * through them all, each replacing the one before). */
static const char *preload_entry(char *const *envp)
{
    const char *found = NULL;
    for (size_t i = 0; envp && envp[i]; i++)
        if (has_name(envp[i], preload))
            found = envp[i];
    return found;
}

size_t childenv_preload_size(char *const *envp)
{
    const char *e = preload_entry(envp);
    return e ? strlen(e) + 1 : 0;
}

static const char *base_name(const char *p, size_t n)
{
    const char *b = p;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '/')
            b = p + i + 1;
    return b;
}

int childenv_is_self(const char *w, size_t n, const char *self)
{
    size_t sn = strlen(self);
    if (n == sn && memcmp(w, self, n) == 0)
        return 1;
    const char *wb = base_name(w, n), *sb = base_name(self, sn);
    size_t wbn = n - (size_t)(wb - w), sbn = sn - (size_t)(sb - self);
    return wbn == sbn && wbn > 0 && memcmp(wb, sb, wbn) == 0;
}

/* The loader splits LD_PRELOAD at spaces and colons. */
static int is_sep(char c)
{
    return c == ' ' || c == ':' || c == '\t';
}

/* "LD_PRELOAD=" and VALUE's words but SELF's into BUF; returns whether a
 * word is left. */
static int rewrite_preload(const char *value, const char *self, char *buf)
{
    size_t k = sizeof preload - 1;
    int words = 0;
    memcpy(buf, preload, k);
    for (const char *p = value; *p;) {
        const char *sep = p;
        while (*p && is_sep(*p))
            p++;
        const char *w = p;
        while (*p && !is_sep(*p))
            p++;
        size_t n = (size_t)(p - w);
        if (n == 0 || childenv_is_self(w, n, self))
            continue;
        if (words++) /* the separator the word had before it */
            buf[k++] = w > sep ? w[-1] : ' ';
        memcpy(buf + k, w, n);
        k += n;
    }
    buf[k] = '\0';
    return words > 0;
}

void childenv_strip(char *const *envp, const char *self, char **out,
                    char *buf)
{
    const char *last = preload_entry(envp);
    size_t k = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i];
        if (has_name(e, "MEMLEAK_CONFIG=") || has_name(e, "MALLOC_TRACE="))
            continue;
        if (has_name(e, preload)) {
            /* Only the entry the loader reads is kept, rewritten. */
            if (e == last && rewrite_preload(e + sizeof preload - 1, self, buf))
                out[k++] = buf;
            continue;
        }
        out[k++] = (char *)e;
    }
    out[k] = NULL;
}
