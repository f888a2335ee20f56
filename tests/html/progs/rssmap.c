/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rssmap.c - resident memory beside the heap (browser-test.py test_rss):
 * allocates a little, maps 100 MiB of anonymous memory and touches every
 * page of it, allocates a little more and exits with the mapping still
 * there, so the samples at exit hold it.  It also leaves one "lock"
 * resource (memleak.h) taken, for the page's resources table.
 */
#include "memleak.h"
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAPPED (100u << 20)

static void *keep[1000];
static int lock;

static __attribute__((noinline)) void take_lock(void)
{
    memleak_resource_acquire("lock", (uintptr_t)&lock);
}

int main(void)
{
    mtrace();
    for (int i = 0; i < 500; i++)
        keep[i] = malloc(1000);
    char *m = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 2;
    memset(m, 1, MAPPED);
    for (int i = 500; i < 1000; i++)
        keep[i] = malloc(2000);
    take_lock();
    for (int i = 0; i < 1000; i++)
        free(keep[i]);
    return m[MAPPED - 1] == 1 ? 0 : 3;
}
