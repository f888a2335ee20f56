/* SPDX-License-Identifier: GPL-3.0-or-later
 * exec_parent.c - a traced process runs another traced program, which
 * inherits LD_PRELOAD, MALLOC_TRACE and MEMLEAK_CONFIG.
 * Known leaks: 123 (before the child runs) and 124 (after it finished).
 * "exec" replaces the parent itself: its log must keep the 123-byte leak.
 * "vfork" runs the child through vfork() + execv(); "fork-closefds" and
 * "vfork-closefds" also close every descriptor above 2 in the child first,
 * as Python's subprocess and posix_spawn file actions do.  "fork-busy" keeps
 * allocating while the child runs (two live traced processes writing).
 * "threads-exec" is
 * "exec" while another thread keeps allocating.  "badexec" tries to exec
 * a missing file first, which fails; the program then goes on as "fork".
 * Usage: exec_parent fork|vfork|fork-closefds|vfork-closefds|fork-busy|
 *                    system|exec|threads-exec|badexec CHILD */
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

static void *hammer(void *arg)
{
    (void)arg;
    for (;;)
        free(used(malloc(48)));
    return NULL;
}

static void exec_with_thread(char **argv)
{
    pthread_t th;

    pthread_create(&th, NULL, hammer, NULL);
    free(used(malloc(10)));
    execv(argv[0], argv);
    _exit(127);
}

static void churn(void)
{
    for (int i = 0; i < 200000; i++)
        free(used(malloc(16 + i % 256)));
}

static int run_forked(char *child, int use_vfork, int close_fds, int busy)
{
    char *args[] = { child, NULL };
    int status;
    pid_t pid = use_vfork ? vfork() : fork();

    if (pid == 0) {
        for (int fd = 3; close_fds && fd < 1024; fd++)
            close(fd);
        execv(child, args);
        _exit(127);
    }
    if (busy && pid > 0)
        churn();
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

int main(int argc, char **argv)
{
    void *before, *after;
    int status;

    if (argc < 3)
        return 2;
    mtrace();
    before = malloc(123);
    escape(before);
    free(used(malloc(64)));
    if (strcmp(argv[1], "exec") == 0) {
        execv(argv[2], argv + 2);
        return 127;
    }
    if (strcmp(argv[1], "threads-exec") == 0)
        exec_with_thread(argv + 2);
    if (strcmp(argv[1], "badexec") == 0) {
        char *none[] = { "/nonexistent/program", NULL };

        execv(none[0], none);
    }
    if (strcmp(argv[1], "system") == 0)
        status = system(argv[2]);
    else
        status = run_forked(argv[2], strncmp(argv[1], "vfork", 5) == 0,
                            strstr(argv[1], "-closefds") != NULL,
                            strcmp(argv[1], "fork-busy") == 0);
    after = malloc(124);
    escape(after);
    free(used(strdup("parent done")));
    say("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
