/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check.c - see check.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* NAME with valgrind's escapes: %p the pid, %q{VAR} $VAR, %% a '%'.
 * Returns a malloc'd string. */
char *expand_name(const char *name, long pid)
{
    size_t cap = strlen(name) + 64, n = 0;
    char *out = malloc(cap);
    for (const char *p = name; out && *p; p++) {
        char buf[32];
        const char *add = NULL;
        size_t len = 1;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(buf, sizeof buf, "%ld", pid);
            add = buf, len = strlen(buf), p++;
        } else if (p[0] == '%' && p[1] == '%') {
            add = "%", p++;
        } else if (p[0] == '%' && p[1] == 'q' && p[2] == '{' &&
                   strchr(p, '}')) {
            const char *end = strchr(p, '}');
            char *var = strndup(p + 3, (size_t)(end - p - 3));
            add = var ? getenv(var) : NULL;
            free(var);
            add = add ? add : "";
            len = strlen(add);
            p = end;
        } else {
            add = p;
        }
        if (n + len + 1 > cap) {
            cap = (n + len + 1) * 2;
            char *grown = realloc(out, cap);
            if (grown == NULL) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        memcpy(out + n, add, len);
        n += len;
    }
    if (out)
        out[n] = '\0';
    return out;
}

/* The text mode of mtrace-check's --valgrind for O, or NULL: no text. */
static const char *text_mode(const struct run_options *o)
{
    if (o->xml || o->leak_check != LC_FULL)
        return o->quiet ? NULL : "--valgrind=summary";
    return o->quiet ? "--valgrind=quiet" : "--valgrind";
}

/* Files written so far: the first write truncates, later ones append. */
static char **opened;
static int nopened;

static int open_report(const char *name)
{
    int append = 0;
    for (int i = 0; i < nopened && !append; i++)
        append = strcmp(opened[i], name) == 0;
    int fd = open(name, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
                  0666);
    if (fd < 0) {
        fprintf(stderr, "mtrace-run: %s: cannot write: %s\n", name,
                strerror(errno));
        return -1;
    }
    char **grown = realloc(opened, (size_t)(nopened + 1) * sizeof *opened);
    if (!append && grown) {
        opened = grown;
        opened[nopened++] = strdup(name);
    } else if (grown) {
        opened = grown;
    }
    return fd;
}

/* The report's descriptor for a group whose first process is PID. */
static int text_fd(const struct run_options *o, long pid, int *close_it)
{
    *close_it = 0;
    if (text_mode(o) == NULL) {
        *close_it = 1;
        return open("/dev/null", O_WRONLY);
    }
    if (o->log_file) {
        char *name = expand_name(o->log_file, pid);
        int fd = name ? open_report(name) : -1;
        free(name);
        *close_it = fd >= 0;
        return fd;
    }
    return o->log_fd >= 0 ? o->log_fd : 2;
}

static int run_checker(char **argv, int out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("mtrace-run: fork");
        return 2;
    }
    if (pid == 0) {
        if (out != 1 && dup2(out, 1) < 0)
            _exit(2);
        execv(argv[0], argv);
        fprintf(stderr, "mtrace-run: %s: %s\n", argv[0], strerror(errno));
        _exit(2);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

static int per_process(const char *name)
{
    return name && strstr(name, "%p") != NULL;
}

/* One check per process (a %p file name): the run's page (--html) is
 * then written by a check of its own. */
static int html_apart(const struct run_options *o)
{
    return per_process(o->log_file) || (o->xml && per_process(o->xml_file));
}

/* mtrace-check on LOGS[0..N), one group of processes. */
static int check_group(const char *checker, const struct run_options *o,
                       const struct run_log *logs, int n)
{
    char **argv = calloc((size_t)(n + o->nsupp * 2 + 16), sizeof *argv);
    char kinds[256], errors[256], callers[64], *xml = NULL;
    int k = 0, close_it, status;
    if (argv == NULL)
        return 2;
    int lc = o->leak_check == LC_FULL;
    snprintf(kinds, sizeof kinds, "--show-leak-kinds=%s",
             lc ? o->show_kinds : "none");
    snprintf(errors, sizeof errors, "--fail-on=%s",
             lc ? o->error_kinds : "none");
    snprintf(callers, sizeof callers, "--num-callers=%d", o->num_callers);
    argv[k++] = (char *)checker;
    argv[k++] = "--quiet";
    if (text_mode(o))
        argv[k++] = (char *)text_mode(o);
    if (o->xml_file)
        xml = expand_name(o->xml_file, logs[0].pid);
    else if (o->xml && asprintf(&xml, "/dev/fd/%d", o->xml_fd) < 0)
        xml = NULL;
    if (o->xml && xml) {
        argv[k++] = "--xml";
        argv[k++] = xml;
    }
    if (o->html && n > 0 && !html_apart(o)) {
        argv[k++] = "--html";
        argv[k++] = (char *)o->html;
    }
    argv[k++] = kinds;
    argv[k++] = errors;
    argv[k++] = callers;
    if (o->gen_supp)
        argv[k++] = "--valgrind-suppressions";
    for (int i = 0; i < o->nsupp; i++) {
        argv[k++] = "--suppressions";
        argv[k++] = (char *)o->supp[i];
    }
    argv[k++] = "--";
    for (int i = 0; i < n; i++)
        argv[k++] = logs[i].path;
    int fd = text_fd(o, logs[0].pid, &close_it);
    status = fd < 0 ? 2 : run_checker(argv, fd);
    if (close_it)
        close(fd);
    free(xml);
    free(argv);
    return status;
}

/* The run's page alone, every log on it (after the per-process checks). */
static int html_page(const char *checker, const struct run_options *o,
                     const struct run_log *logs, int n)
{
    char **argv = calloc((size_t)n + 8, sizeof *argv);
    int k = 0;
    if (argv == NULL)
        return 2;
    argv[k++] = (char *)checker;
    argv[k++] = "--quiet";
    argv[k++] = "--html";
    argv[k++] = (char *)o->html;
    argv[k++] = "--";
    for (int i = 0; i < n; i++)
        argv[k++] = logs[i].path;
    int out = open("/dev/null", O_WRONLY);
    int status = out < 0 ? 2 : run_checker(argv, out);
    if (out >= 0)
        close(out);
    free(argv);
    return status == 2 ? 2 : 0;
}

int check_logs(const char *checker, const struct run_options *o,
               const struct run_log *logs, int n)
{
    if (!html_apart(o))
        return check_group(checker, o, logs, n);
    int worst = 0;
    for (int i = 0; i < n; i++) {
        int st = check_group(checker, o, &logs[i], 1);
        if (st == 2 || (st == 1 && worst == 0))
            worst = st;
    }
    if (o->html && html_page(checker, o, logs, n) == 2)
        worst = 2;
    return worst;
}
