/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c - mtrace-run: valgrind memcheck's leak check, with libmtrace.
 *   mtrace-run [OPTION]... [--] PROGRAM [ARG]...
 * runs PROGRAM with libmtrace.so preloaded from its start
 * (MEMLEAK_CONFIG=mtraceinit), every process of the tree writing its log
 * into one run directory, waits for it, checks every log with
 * mtrace-check (check.h) and exits with PROGRAM's status, or with
 * --error-exitcode's when leaks of the error kinds were found; a program
 * killed by a signal kills mtrace-run with the same signal after the
 * report.  PROGRAM's own standard input, output and error are its own.
 * Options: options.h; where the tools are: locate.h; the logs: rundir.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE
#include "check.h"
#include "locate.h"
#include "options.h"
#include "rundir.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The environment PROGRAM runs with (in the child, before exec). */
static int trace_env(const char *lib, const char *dir,
                     const struct run_options *o)
{
    char *preload, *trace, *config;
    const char *old = getenv("LD_PRELOAD");
    const char *cfg = getenv("MEMLEAK_CONFIG");
    int depth = o->num_callers > 32 ? o->num_callers : 32;
    if (depth > 256)
        depth = 256;
    if (asprintf(&preload, "%s%s%s", lib, old && *old ? " " : "",
                 old ? old : "") < 0 ||
        asprintf(&trace, "%s/trace.%%p", dir) < 0 ||
        asprintf(&config, "mtraceinit,depth=%d%s%s%s%s%s", depth,
                 o->trace_children ? "" : ",children=0",
                 cfg && *cfg ? "," : "", cfg ? cfg : "",
                 o->mtrace_config ? "," : "",
                 o->mtrace_config ? o->mtrace_config : "") < 0)
        return -1;
    return setenv("LD_PRELOAD", preload, 1) || setenv("MALLOC_TRACE", trace, 1) ||
                   setenv("MEMLEAK_CONFIG", config, 1)
               ? -1
               : 0;
}

/* Runs PROGRAM; returns its wait status, or -1.  *PID gets its pid. */
static int run_program(const char *lib, const char *dir,
                       const struct run_options *o, pid_t *pid)
{
    fflush(NULL);
    *pid = fork();
    if (*pid < 0) {
        perror("mtrace-run: fork");
        return -1;
    }
    if (*pid == 0) {
        if (trace_env(lib, dir, o) != 0) {
            perror("mtrace-run: environment");
            _exit(126);
        }
        execvp(o->program[0], o->program);
        int err = errno;
        fprintf(stderr, "mtrace-run: %s: %s\n", o->program[0], strerror(err));
        _exit(err == ENOENT ? 127 : 126);
    }
    /* As system() does: ^C and ^\ are the program's to act on; its end
     * is then reported and the run directory removed. */
    struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    int st, r;
    while ((r = waitpid(*pid, &st, 0)) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    if (r < 0) {
        perror("mtrace-run: waitpid");
        return -1;
    }
    return st;
}

/* --trace-children=no: the program's own logs and its fork children's,
 * not those of programs it started with exec.  Those run untraced
 * (MEMLEAK_CONFIG's children=0) and write none; this keeps out what
 * system() and popen() start, which glibc starts past the library. */
static int keep_own(struct run_log *logs, int n, long root)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (logs[i].pid == root || logs[i].forked)
            logs[k++] = logs[i];
        else
            free(logs[i].path);
    }
    return k;
}

static int report(const char *checker, const char *dir,
                  const struct run_options *o, pid_t root, int st)
{
    int n;
    struct run_log *logs = rundir_logs(dir, root, &n);
    if (!o->trace_children)
        n = keep_own(logs, n, root);
    int status = 0;
    if (n == 0) {
        if (!(WIFEXITED(st) && WEXITSTATUS(st) >= 126))
            fprintf(stderr,
                    "mtrace-run: %s wrote no log: not traced (a static or "
                    "setuid executable?)\n",
                    o->program[0]);
    } else {
        status = check_logs(checker, o, logs, n);
        if (status == 2)
            fprintf(stderr, "mtrace-run: the check of %s's logs failed\n",
                    o->program[0]);
    }
    rundir_free(logs, n);
    return status;
}

/* The same end as PROGRAM's: its exit status, or its signal. */
static int end_like(int st)
{
    if (WIFSIGNALED(st)) {
        struct rlimit none = { 0, 0 };
        setrlimit(RLIMIT_CORE, &none); /* its core, if any, is its own */
        signal(WTERMSIG(st), SIG_DFL);
        raise(WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
    return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    struct run_options o;
    char *lib, *checker;
    switch (run_parse_options(argc, argv, &o)) {
    case RUN_EXIT_OK:
        return 0;
    case RUN_USAGE:
        return 1;
    case RUN_GO:
        break;
    }
    if (locate_tools(&lib, &checker) != 0)
        return 1;
    char *dir = rundir_make(o.mtrace_dir);
    if (dir == NULL)
        return 1;
    pid_t pid;
    int st = run_program(lib, dir, &o, &pid);
    int status = st < 0 ? 2 : report(checker, dir, &o, pid, st);
    if (o.mtrace_dir == NULL)
        rundir_remove(dir);
    free(dir);
    free(lib);
    free(checker);
    if (st < 0)
        return 1;
    if (status != 0 && o.error_exitcode)
        return o.error_exitcode;
    return end_like(st);
}
