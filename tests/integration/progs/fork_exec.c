/* SPDX-License-Identifier: GPL-3.0-or-later
 * fork_exec.c - leaks 111 bytes, then runs CHILD twice by fork() + execl()
 * and waits for both.  The fork children only exec: they own nothing, so
 * they must leave no log and report nothing (issue 10: each used to list
 * the parent's 111-byte block as its own leak).
 * Usage: fork_exec CHILD   (traced with MEMLEAK_CONFIG=mtraceinit) */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    escape(malloc(111));
    free(used(malloc(40)));
    for (int i = 0; i < 2; i++) {
        int status;
        pid_t pid = fork();
        if (pid == 0) {
            execl(argv[1], argv[1], (char *)NULL);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid)
            return 1;
        say("child %d status %d\n", (int)pid,
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    return 0;
}
