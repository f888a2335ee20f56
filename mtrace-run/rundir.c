/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rundir.c - see rundir.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *rundir_make(const char *dir)
{
    char *path;
    if (dir) {
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "mtrace-run: %s: cannot create: %s\n", dir,
                    strerror(errno));
            return NULL;
        }
        return strdup(dir);
    }
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || *tmp == '\0')
        tmp = "/tmp";
    if (asprintf(&path, "%s/mtrace-run.XXXXXX", tmp) < 0)
        return NULL;
    if (mkdtemp(path) == NULL) {
        fprintf(stderr, "mtrace-run: %s: cannot create: %s\n", path,
                strerror(errno));
        free(path);
        return NULL;
    }
    return path;
}

/* The pid and forked-from of a log's "#v" line, among its first lines
 * (plain text: mtrace-run never asks for compressed logs). */
static void read_header(struct run_log *l)
{
    char line[1024];
    FILE *f = fopen(l->path, "r");
    l->pid = -1;
    for (int i = 0; f && i < 8 && fgets(line, sizeof line, f); i++) {
        if (strncmp(line, "#v ", 3) != 0)
            continue;
        const char *p = strstr(line, " pid=");
        if (p)
            l->pid = strtol(p + 5, NULL, 10);
        l->forked = strstr(line, " forked-from=") != NULL;
        break;
    }
    if (f)
        fclose(f);
}

static long root_pid;

static int by_root_then_pid(const void *pa, const void *pb)
{
    const struct run_log *a = pa, *b = pb;
    if ((a->pid == root_pid) != (b->pid == root_pid))
        return a->pid == root_pid ? -1 : 1;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return strcmp(a->path, b->path);
}

struct run_log *rundir_logs(const char *dir, long root, int *n)
{
    DIR *d = opendir(dir);
    struct run_log *logs = NULL;
    struct dirent *e;
    *n = 0;
    while (d && (e = readdir(d))) {
        struct stat st;
        char *path;
        if (strncmp(e->d_name, "trace.", 6) != 0 ||
            asprintf(&path, "%s/%s", dir, e->d_name) < 0)
            continue;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            free(path);
            continue;
        }
        struct run_log *grown = realloc(logs, (size_t)(*n + 1) * sizeof *logs);
        if (grown == NULL) {
            free(path);
            break;
        }
        logs = grown;
        logs[*n].path = path;
        read_header(&logs[*n]);
        ++*n;
    }
    if (d)
        closedir(d);
    root_pid = root;
    if (*n)
        qsort(logs, (size_t)*n, sizeof *logs, by_root_then_pid);
    return logs;
}

void rundir_free(struct run_log *logs, int n)
{
    for (int i = 0; i < n; i++)
        free(logs[i].path);
    free(logs);
}

void rundir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *path;
        /* the directory is mtrace-run's own (mkdtemp): the logs, and
         * the reports a program may write beside its log */
        if (e->d_type == DT_DIR ||
            asprintf(&path, "%s/%s", dir, e->d_name) < 0)
            continue;
        unlink(path);
        free(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}
