/* SPDX-License-Identifier: GPL-3.0-or-later
 * tree.c - a process tree for mtrace-run's tests (argv[1] says which):
 *   fork     a fork child leaks 111 bytes, the parent 222
 *   exec     a child started by fork+exec leaks 333 ("leaf"), the parent 222
 *   leaf     leaks 333
 *   status N leaks 444 and exits with N
 *   signal   leaks 555 and dies of SIGTERM */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *volatile sink; /* the compiler keeps every malloc */

__attribute__((noinline)) static void leak(size_t n)
{
    sink = malloc(n);
    memset(sink, 1, n);
    sink = NULL;
}

static void wait_child(pid_t pid)
{
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        exit(99);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (strcmp(c, "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            leak(111);
            exit(0);
        }
        wait_child(pid);
        leak(222);
    } else if (strcmp(c, "exec") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            execl(argv[0], argv[0], "leaf", (char *)NULL);
            _exit(98);
        }
        wait_child(pid);
        leak(222);
    } else if (strcmp(c, "leaf") == 0) {
        leak(333);
    } else if (strcmp(c, "status") == 0 && argc > 2) {
        leak(444);
        return atoi(argv[2]);
    } else if (strcmp(c, "signal") == 0) {
        leak(555);
        raise(SIGTERM);
    }
    return 0;
}
