/* SPDX-License-Identifier: GPL-3.0-or-later
 * reload.c - dlopen()s, uses and dlclose()s PLUGIN CYCLES times, as a
 * server that reloads plugins does.  Prints the resident set size after
 * cycle MARK and after the last one: "rss MARK BYTES" and "rss CYCLES
 * BYTES".  Known leaks: none.  Usage: reload PLUGIN CYCLES MARK */
#include <dlfcn.h>
#include <fcntl.h>
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util.h"

static long rss_bytes(void)
{
    char buf[128];
    long size = 0, resident = 0;
    int fd = open("/proc/self/statm", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    sscanf(buf, "%ld %ld", &size, &resident);
    return resident * sysconf(_SC_PAGESIZE);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    long cycles = atol(argv[2]), mark = atol(argv[3]);
    mtrace();
    for (long i = 1; i <= cycles; i++) {
        void *h = dlopen(argv[1], RTLD_NOW);
        if (h == NULL) {
            say("dlopen: %s\n", dlerror());
            return 1;
        }
        void *(*work)(void);
        *(void **)&work = dlsym(h, "reload_work");
        escape(work());
        dlclose(h);
        if (i == mark || i == cycles)
            say("rss %ld %ld\n", i, rss_bytes());
    }
    return 0;
}
