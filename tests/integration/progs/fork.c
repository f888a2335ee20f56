/* SPDX-License-Identifier: GPL-3.0-or-later
 * fork.c - a traced process forks; the child frees an inherited block.
 * Parent: leaks 111 (inherited by the child too) and 444.
 * Child:  frees the inherited 111 block, keeps the inherited 222 block (the
 *         parent's, not the child's leak) and leaks its own 333.
 * Prints "child PID".  Usage: fork exit|_exit  (how the child ends) */
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

static void *a, *b, *c, *d;

static __attribute__((noinline)) void child(int use_exit)
{
    free(a);
    c = malloc(333);
    escape(c);
    void *tmp = realloc(malloc(10), 20);
    escape(tmp);
    free(tmp);
    if (use_exit)
        exit(0);
    _exit(0);
}

int main(int argc, char **argv)
{
    int use_exit = argc > 1 && strcmp(argv[1], "exit") == 0;
    int status;
    pid_t pid;

    mtrace();
    a = malloc(111);
    b = malloc(222);
    escape(a);
    escape(b);
    free(used(malloc(50)));
    pid = fork();
    if (pid == 0)
        child(use_exit);
    waitpid(pid, &status, 0);
    free(b);
    d = malloc(444);
    escape(d);
    say("child %d\n", (int)pid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
