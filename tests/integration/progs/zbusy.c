/* SPDX-License-Identifier: GPL-3.0-or-later
 * zbusy.c - enough events for a compressed log's thread to work (each
 * thread: N malloc/free pairs of 16-1039 bytes, a ring of 64 live
 * blocks, ~60 bytes of log a pair), then an ending of choice.
 * Known leaks: 1111 (main), 2000+i for thread i (THREADS threads), then
 *   return|exit|_exit|_Exit|quick_exit|abort|segv|term|kill: nothing more;
 *   muntrace: nothing more, and a 9999 block after muntrace() (unlogged);
 *   fork: the child churns, leaks 3333 and ends with exit(); the parent
 *         waits for it, leaks 4444 and returns;
 *   daemon: daemon(1, 1); the child churns, leaks 5555 and creates
 *         ./daemon.done;
 *   exec PROG: a thread keeps allocating while main execs PROG.
 * Before it ends (not after exec, kill or a signal) it prints "compressor
 * yes" when a thread of the process is named mtrace-zstd (libmtrace's
 * compressor), else "compressor no".
 * Usage: zbusy MODE THREADS N [PROG] */
#include <dirent.h>
#include <fcntl.h>
#include <mcheck.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util.h"

static long pairs;

static void churn(long n)
{
    void *ring[64] = { 0 };

    for (long i = 0; i < n; i++) {
        free(ring[i % 64]);
        ring[i % 64] = used(malloc(16 + (size_t)(i * 7919 % 1024)));
    }
    for (int i = 0; i < 64; i++)
        free(ring[i]);
}

static void *worker(void *arg)
{
    churn(pairs);
    escape(malloc(2000 + (size_t)arg));
    return NULL;
}

static void *hammer(void *arg)
{
    (void)arg;
    for (;;)
        free(used(malloc(48)));
    return NULL;
}

/* Is a thread of ours named mtrace-zstd?  (opendir allocates: before the
 * leaks are counted, freed again.) */
static int has_compressor(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int found = 0;

    while (d && (e = readdir(d)) != NULL) {
        char path[300], name[32] = "";
        int fd;
        ssize_t n;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        fd = open(path, O_RDONLY);
        n = fd >= 0 ? read(fd, name, sizeof name - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n > 0 && strncmp(name, "mtrace-zstd", 11) == 0)
            found = 1;
    }
    if (d)
        closedir(d);
    return found;
}

static void report(void)
{
    say("compressor %s\n", has_compressor() ? "yes" : "no");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "return";
    long threads = argc > 2 ? atol(argv[2]) : 2;
    pthread_t th[16];

    pairs = argc > 3 ? atol(argv[3]) : 100000;
    if (threads > 16)
        threads = 16;
    mtrace();
    for (long i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    churn(pairs);
    for (long i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    escape(malloc(1111));

    if (strcmp(mode, "exec") == 0 && argc > 4) {
        char *args[] = { argv[4], NULL };
        pthread_t h;

        pthread_create(&h, NULL, hammer, NULL);
        churn(pairs / 10);
        execv(argv[4], args);
        _exit(127);
    }
    if (strcmp(mode, "kill") == 0)
        kill(getpid(), SIGKILL);
    if (strcmp(mode, "abort") == 0)
        abort();
    if (strcmp(mode, "segv") == 0)
        *(volatile int *)hide(NULL) = 1;
    if (strcmp(mode, "term") == 0)
        kill(getpid(), SIGTERM);
    if (strcmp(mode, "fork") == 0) {
        pid_t pid = fork();
        int status;

        if (pid == 0) {
            churn(pairs);
            escape(malloc(3333));
            say("child %d\n", (int)getpid());
            exit(0);
        }
        waitpid(pid, &status, 0);
        escape(malloc(4444));
    }
    if (strcmp(mode, "daemon") == 0) {
        say("parent %d\n", (int)getpid());
        if (daemon(1, 1) != 0)
            return 1;
        churn(pairs);
        escape(malloc(5555));
        say("child %d\n", (int)getpid());
        report();
        close(open("daemon.done", O_WRONLY | O_CREAT, 0644));
        return 0;
    }
    report();
    if (strcmp(mode, "muntrace") == 0) {
        muntrace();
        escape(malloc(9999));
    }
    if (strcmp(mode, "exit") == 0)
        exit(0);
    if (strcmp(mode, "_exit") == 0)
        _exit(0);
    if (strcmp(mode, "_Exit") == 0)
        _Exit(0);
    if (strcmp(mode, "quick_exit") == 0)
        quick_exit(0);
    return 0;
}
