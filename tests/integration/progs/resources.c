/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resources.c - resources other than memory (tests-resources.sh): leaks
 * one "lock" resource (memleak.h) from take_lock() and one descriptor
 * from leak_open(), and gives back every other one it takes, through each
 * descriptor call libmtrace records with fds=1.  A fork child opens a
 * close-on-exec descriptor and execs this program ("exec-child"), which
 * ends it.  Prints "child pid N".
 */
#define _GNU_SOURCE
#include "memleak.h"
#include <fcntl.h>
#include <mcheck.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

static int lock_a, lock_b;

static __attribute__((noinline)) void take_lock(int *l)
{
    memleak_resource_acquire("lock", (uintptr_t)l);
}

static __attribute__((noinline)) int leak_open(void)
{
    return open("/dev/null", O_RDONLY);
}

static void must(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(2);
    }
}

static void closed(int fd, const char *what)
{
    must(fd >= 0 && close(fd) == 0, what);
}

static void pairs(void)
{
    int p[2];
    must(pipe(p) == 0, "pipe");
    closed(p[0], "pipe 0");
    closed(p[1], "pipe 1");
    must(pipe2(p, O_CLOEXEC) == 0, "pipe2");
    closed(p[0], "pipe2 0");
    closed(p[1], "pipe2 1");
    must(socketpair(AF_UNIX, SOCK_STREAM, 0, p) == 0, "socketpair");
    closed(p[0], "socketpair 0");
    closed(p[1], "socketpair 1");
}

static void files(void)
{
    closed(open("/dev/null", O_RDONLY), "open");
    closed(openat(AT_FDCWD, "/dev/null", O_RDONLY), "openat");
    closed(creat("created.tmp", 0600), "creat");
    FILE *f = fopen("/dev/null", "r");
    must(f && fclose(f) == 0, "fopen");
    f = fopen("/dev/null", "r");
    must(f != NULL, "fopen");
    f = freopen("/dev/zero", "r", f);
    must(f && fclose(f) == 0, "freopen");
    f = fdopen(open("/dev/null", O_RDONLY), "r");
    must(f && fclose(f) == 0, "fdopen");
}

static void others(void)
{
    int d = dup(1), d2 = dup2(d, 40);
    closed(d, "dup");
    closed(d2, "dup2");
    closed(dup3(1, 41, O_CLOEXEC), "dup3");
    closed(fcntl(1, F_DUPFD, 50), "F_DUPFD");
    closed(fcntl(1, F_DUPFD_CLOEXEC, 50), "F_DUPFD_CLOEXEC");
    closed(socket(AF_UNIX, SOCK_STREAM, 0), "socket");
    closed(eventfd(0, 0), "eventfd");
    sigset_t m;
    sigemptyset(&m);
    closed(signalfd(-1, &m, 0), "signalfd");
    closed(timerfd_create(CLOCK_MONOTONIC, 0), "timerfd_create");
    closed(epoll_create(1), "epoll_create");
    closed(epoll_create1(0), "epoll_create1");
    closed(inotify_init(), "inotify_init");
    closed(inotify_init1(0), "inotify_init1");
    closed(memfd_create("resources", 0), "memfd_create");
    int a = open("/dev/null", O_RDONLY), b = dup(a);
    must(a >= 0 && b > a, "open for close_range");
    must(close_range((unsigned)a, (unsigned)b, 0) == 0, "close_range");
}

/* A descriptor that ends at exec, in a child that execs this program. */
static void exec_child(const char *self)
{
    pid_t pid = fork();
    must(pid >= 0, "fork");
    if (pid == 0) {
        must(open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0, "open O_CLOEXEC");
        execl(self, self, "exec-child", (char *)NULL);
        _exit(3);
    }
    printf("child pid %d\n", (int)pid);
    int st;
    must(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
             WEXITSTATUS(st) == 0,
         "exec child");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exec-child") == 0)
        return 0;
    mtrace();
    take_lock(&lock_a);
    take_lock(&lock_b);
    memleak_resource_release("lock", (uintptr_t)&lock_b);
    must(leak_open() >= 0, "leak_open");
    files();
    pairs();
    others();
    fflush(stdout);
    exec_child(argv[0]);
    return 0;
}
