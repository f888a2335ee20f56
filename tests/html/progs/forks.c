/* SPDX-License-Identifier: GPL-3.0-or-later */
/* forks.c - a small process tree for the run page (runpage-test.py):
 * the parent forks two children and waits for them; each process leaks
 * what only it leaks, so that each row of the page can be told apart:
 *   child 1: 1000 bytes definitely lost;
 *   child 2: 2000 bytes definitely lost, 300 still reachable (a global);
 *   parent:  4000 bytes definitely lost, a 64-byte node lost through it.
 * Traced with MEMLEAK_CONFIG=mtraceinit, MALLOC_TRACE=DIR/trace.%p. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void *kept; /* not static: a root the exit scan finds */

static void escape(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

__attribute__((noinline)) static void lose(size_t n)
{
    char *p = malloc(n);
    memset(p, 'x', n);
    escape(p);
}

__attribute__((noinline)) static void lose_pair(void)
{
    void **head = malloc(4000);
    memset(head, 0, 4000);
    head[0] = malloc(64);
    memset(head[0], 0, 64);
    escape(head);
}

static void child(int k)
{
    if (k == 1) {
        lose(1000);
    } else {
        lose(2000);
        kept = malloc(300);
        memset(kept, 'k', 300);
    }
    exit(0);
}

int main(void)
{
    for (int k = 1; k <= 2; k++) {
        pid_t pid = fork();
        if (pid == 0)
            child(k);
        int st;
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
            return 1;
    }
    lose_pair();
    return 0;
}
