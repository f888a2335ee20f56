/* SPDX-License-Identifier: GPL-3.0-or-later
 * children.c - a process tree for MEMLEAK_CONFIG=children=0 (mtrace-run
 * --trace-children=no): programs started by exec must run untraced, fork
 * children stay traced.  Usage: children HOW, HOW one of
 *   fork      a fork child leaks 111 bytes and exits (no exec)
 *   execv     fork + execv of "children leaf"
 *   execvp    fork + execvp (searched in PATH by its base name)
 *   execle    fork + execle with an environment of the parent's
 *   vfork     vfork + execve with environ
 *   spawn     posix_spawn
 *   spawnp    posix_spawnp
 * The parent leaks 222 and waits; "leaf" leaks 333 and prints what tells
 * whether it is traced: libmtrace mapped or not, and the variables that
 * would trace it.  Prints "leaf status N" in the parent. */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

extern char **environ;

static int mapped(const char *name)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, name) != NULL;
    if (f)
        fclose(f);
    return found;
}

static const char *var(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

static int leaf(void)
{
    escape(malloc(333));
    printf("leaf: libmtrace %s\n", mapped("libmtrace") ? "mapped" : "not mapped");
    printf("leaf: LD_PRELOAD=%s\n", var("LD_PRELOAD"));
    printf("leaf: MEMLEAK_CONFIG=%s\n", var("MEMLEAK_CONFIG"));
    printf("leaf: MALLOC_TRACE=%s\n", var("MALLOC_TRACE"));
    return 5;
}

static pid_t start(const char *how, char *self)
{
    char *argv[] = { self, "leaf", NULL };
    pid_t pid = -1;
    if (strcmp(how, "spawn") == 0 || strcmp(how, "spawnp") == 0) {
        int err = strcmp(how, "spawn") == 0
                      ? posix_spawn(&pid, self, NULL, NULL, argv, environ)
                      : posix_spawnp(&pid, strrchr(self, '/') + 1, NULL, NULL,
                                     argv, environ);
        return err ? -1 : pid;
    }
    pid = strcmp(how, "vfork") == 0 ? vfork() : fork();
    if (pid != 0)
        return pid;
    if (strcmp(how, "fork") == 0) {
        escape(malloc(111));
        exit(0);
    }
    if (strcmp(how, "execv") == 0)
        execv(self, argv);
    else if (strcmp(how, "execvp") == 0)
        execvp(strrchr(self, '/') + 1, argv);
    else if (strcmp(how, "execle") == 0)
        execle(self, self, "leaf", (char *)NULL, environ);
    else if (strcmp(how, "vfork") == 0)
        execve(self, argv, environ);
    _exit(127);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (strcmp(argv[1], "leaf") == 0)
        return leaf();
    escape(malloc(222));
    char *self = realpath("/proc/self/exe", NULL);
    fflush(stdout);
    pid_t pid = self ? start(argv[1], self) : -1;
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 1;
    free(self);
    printf("leaf status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
