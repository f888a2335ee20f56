/* SPDX-License-Identifier: GPL-3.0-or-later */
/* siblings.c - the right log for the right program.
 *
 * A traced command often runs through a wrapper: `timeout 60 ./prog`, a
 * shell script, gdb's shell, strace, a pyenv shim.  Every process of it
 * inherits MALLOC_TRACE, and the first one, the wrapper, takes the plain
 * name; the program writes LOG.PID (README, "Log files of forked and
 * exec'd processes").  `mtrace-check ./prog LOG` then named the wrapper's
 * log, and reported on the wrapper.  When LOG's "#p" record names another
 * executable than BINARY and exactly one sibling of LOG is BINARY's (the
 * newest, when a program ran several times), that one is checked, and
 * stderr says so.  Executables are compared as files (device and inode),
 * so a symbolic link or a relative name finds its target; when none
 * matches, LOG is checked as it is.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "cli/siblings.h"
#include "base/diag.h"
#include "mtrace-format.h"
#include "read/source.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The executable a log's "#p" record names, into BUF; 0 when it has none
 * in its first lines (a classic log, another file). */
static int log_program(const char *path, char *buf, size_t cap)
{
    char head[8192];
    long n = src_peek(path, head, sizeof head);
    if (n <= 0)
        return 0;
    static const char key[] = "\n" MTF_REC_PROGRAM " ";
    const char *p = strstr(head, key);
    if (p == NULL)
        return 0;
    p += sizeof key - 1;
    size_t len = strcspn(p, "\n");
    if (p[len] != '\n' || len == 0 || len >= cap)
        return 0;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 1;
}

static int same_file(const char *a, const struct stat *b)
{
    struct stat st;
    return stat(a, &st) == 0 && st.st_dev == b->st_dev &&
           st.st_ino == b->st_ino;
}

/* NAME is STEM "." digits, then optionally "." digits, then SUFFIX. */
static int sibling_name(const char *name, const char *stem, size_t nstem,
                        const char *suffix)
{
    if (strncmp(name, stem, nstem) != 0 || name[nstem] != '.')
        return 0;
    const char *p = name + nstem + 1;
    for (int part = 0; part < 2; part++) {
        const char *digits = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return 0;
        if (strcmp(p, suffix) == 0)
            return 1;
        if (*p != '.')
            return 0;
        p++;
    }
    return 0;
}

struct search {
    char *dir, *stem, *suffix;
    int here; /* LOG named no directory: neither do its siblings */
    struct stat binary;
    char *best;
    struct timespec best_time;
    int found;
};

static void consider(struct search *s, const char *name)
{
    char *path, program[4096];
    struct stat st;
    if (s->here)
        path = strdup(name);
    else if (asprintf(&path, "%s/%s", s->dir, name) < 0)
        return;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        !log_program(path, program, sizeof program) ||
        !same_file(program, &s->binary)) {
        free(path);
        return;
    }
    s->found++;
    if (s->best == NULL || st.st_mtim.tv_sec > s->best_time.tv_sec ||
        (st.st_mtim.tv_sec == s->best_time.tv_sec &&
         st.st_mtim.tv_nsec > s->best_time.tv_nsec)) {
        free(s->best);
        s->best = path;
        s->best_time = st.st_mtim;
    } else {
        free(path);
    }
}

/* LOG's directory, the stem its siblings start with and the suffix they
 * end with ("trace.log.zst": "trace.log", ".zst"). */
static void split_log_name(struct search *s, const char *log)
{
    const char *slash = strrchr(log, '/');
    s->dir = slash ? strndup(log, (size_t)(slash - log + (slash == log)))
                   : strdup(".");
    s->here = slash == NULL;
    const char *base = slash ? slash + 1 : log;
    size_t n = strlen(base);
    static const char *const compressed[] = { ".zst", ".gz", NULL };
    s->suffix = strdup("");
    for (int i = 0; compressed[i]; i++) {
        size_t k = strlen(compressed[i]);
        if (n > k && strcmp(base + n - k, compressed[i]) == 0) {
            free(s->suffix);
            s->suffix = strdup(compressed[i]);
            n -= k;
            break;
        }
    }
    s->stem = strndup(base, n);
}

char *sibling_for_binary(const char *log, const char *binary)
{
    char program[4096];
    struct search s = { 0 };
    if (binary == NULL || strcmp(log, "-") == 0 ||
        stat(binary, &s.binary) != 0 ||
        !log_program(log, program, sizeof program) ||
        same_file(program, &s.binary))
        return NULL;
    split_log_name(&s, log);
    DIR *d = opendir(s.dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;)
            if (sibling_name(e->d_name, s.stem, strlen(s.stem), s.suffix))
                consider(&s, e->d_name);
        closedir(d);
    }
    if (s.best)
        diag(log, 0, "the log of %s, not of %s: checking %s instead%s",
             program, binary, s.best,
             s.found > 1 ? " (the newest of its logs there)" : "");
    free(s.dir);
    free(s.stem);
    free(s.suffix);
    return s.best;
}
