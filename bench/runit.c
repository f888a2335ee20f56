/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runit.c - runs a command and reports its wall time, peak RSS and exit
 * status:  runit RESULTFILE TIMEOUT [VAR=VALUE...] -- PROG [ARG...]
 * RESULTFILE gets one line "WALL_SECONDS MAXRSS_KIB EXIT_STATUS CPU_SECONDS"
 * (CPU = user + system time of PROG and the children it waited for).
 * The VAR=VALUE settings (LD_PRELOAD, MALLOC_TRACE...) go to PROG only,
 * so the tracer under test never loads into the runner itself.
 * After TIMEOUT seconds (0: none) the command is killed, so one hung
 * tracer cannot hang the whole bench.
 *
 * Why a C runner: Linux carries a process's peak RSS across exec(), so a
 * child spawned straight from the Python driver would report at least
 * Python's own RSS.  This runner is a few hundred KiB, so the child's
 * ru_maxrss is its own.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child;

static void on_alarm(int sig)
{
    (void)sig;
    kill(child, SIGKILL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Exit status as a shell reports it: 128+N for death by signal N. */
static int exit_status(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* In the forked child: set the tracer's variables, then become PROG. */
static void exec_child(char **vars, int nvars, char **cmd)
{
    for (int i = 0; i < nvars; i++)
        putenv(vars[i]);
    execvp(cmd[0], cmd);
    perror(cmd[0]);
    _exit(127);
}

int main(int argc, char **argv)
{
    int prog = 3;
    while (prog < argc && strcmp(argv[prog], "--"))
        prog++;
    if (prog + 1 >= argc) {
        fputs(
            "usage: runit RESULTFILE TIMEOUT [VAR=VALUE...] -- PROG [ARG...]\n",
            stderr);
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 2;
    }
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(argv + 3, prog - 3, argv + prog + 1);
    child = pid;
    signal(SIGALRM, on_alarm);
    alarm(atoi(argv[2]));
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
        perror("runit");
        return 2;
    }
    double wall = now() - t0;
    double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    fprintf(out, "%.6f %ld %d %.6f\n", wall, ru.ru_maxrss, exit_status(status),
            cpu);
    return fclose(out) ? 2 : 0;
}
