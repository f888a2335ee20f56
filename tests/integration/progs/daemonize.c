/* SPDX-License-Identifier: GPL-3.0-or-later
 * daemonize.c - daemon(): glibc forks and the parent leaves at once through
 * its internal _exit(), the child carries on in a new session.  Parent:
 * leaks 11.  Child: frees the inherited 11 block, leaks 22, then creates
 * ./daemon.done.  Prints "parent PID" and "child PID". */
#include <fcntl.h>
#include <mcheck.h>
#include <stdlib.h>
#include <unistd.h>
#include "util.h"

int main(void)
{
    void *a, *b;

    mtrace();
    a = used(malloc(11));
    free(used(malloc(5)));
    say("parent %d\n", (int)getpid());
    if (daemon(1, 1) != 0)
        return 1;
    b = used(malloc(22));
    free(a);
    escape(b);
    say("child %d\n", (int)getpid());
    close(open("daemon.done", O_WRONLY | O_CREAT, 0644));
    return 0;
}
