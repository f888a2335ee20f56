/* SPDX-License-Identifier: GPL-3.0-or-later
 * beyond.c - issue 30's "done when" program in one piece (tests-beyond.sh):
 * every kind of thing libmtrace tracks beyond malloc, leaked or kept once,
 * each from a function of its own so that its stack names it:
 *   leak_pool_block  - a pool block of 3001 bytes nothing points to
 *                      (definitely lost);
 *   keep_pool_block  - a pool block of 3002 bytes a global points to
 *                      (still reachable);
 *   drop_pool        - a second pool, three blocks live, destroyed (no
 *                      record: destroy releases them all);
 *   take_lock        - a "lock" resource never released;
 *   leak_fd          - an open()ed descriptor never closed (fds=1);
 *   leak_map         - a 64 KiB anonymous mapping nothing points to
 *                      (definitely lost with mmap=1).
 * The pools carve their blocks from static chunks, so the program itself
 * makes no malloc block at all: any other loss record of its stacks is
 * wrong.  Run under MEMLEAK_CONFIG=mtraceinit (no mtrace() call).
 * Built at -O1 (a dead frame's pointer stays dead). */
#define _GNU_SOURCE
#include "util.h"
#include <memleak.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* A pool over a static chunk: a header at its start (no pointer to the
 * chunk is a pointer to its first block), blocks carved upwards. */
struct pool {
    memleak_pool id;
    char *chunk;
    size_t used;
};

#define POOL_HEADER 64
static char kept_chunk[16384], gone_chunk[16384];
static struct pool kept_pool;
void *kept_block;
static int the_lock;

static void pool_init(struct pool *p, const char *name, char *chunk)
{
    p->id = memleak_pool_create(name);
    p->chunk = chunk;
    p->used = POOL_HEADER;
}

static void *pool_get(struct pool *p, size_t n)
{
    void *b = p->chunk + p->used;
    p->used += (n + 15) & ~(size_t)15;
    memleak_pool_alloc(p->id, b, n);
    return b;
}

__attribute__((noinline)) static void leak_pool_block(void)
{
    escape(pool_get(&kept_pool, 3001));
}

__attribute__((noinline)) static void keep_pool_block(void)
{
    kept_block = pool_get(&kept_pool, 3002);
}

__attribute__((noinline)) static void drop_pool(void)
{
    struct pool gone;
    pool_init(&gone, "gone", gone_chunk);
    escape(pool_get(&gone, 3011));
    escape(pool_get(&gone, 3012));
    escape(pool_get(&gone, 3013));
    memleak_pool_destroy(gone.id);
}

__attribute__((noinline)) static void take_lock(void)
{
    memleak_resource_acquire("lock", (uintptr_t)&the_lock);
}

__attribute__((noinline)) static int leak_fd(void)
{
    return open("/dev/null", O_RDONLY);
}

__attribute__((noinline)) static void leak_map(void)
{
    void *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        abort();
    memset(m, 1, 64);
    escape(m);
}

int main(void)
{
    pool_init(&kept_pool, "kept", kept_chunk);
    leak_pool_block();
    keep_pool_block();
    drop_pool();
    take_lock();
    if (leak_fd() < 0)
        return 2;
    leak_map();
    return 0;
}
