/* SPDX-License-Identifier: GPL-3.0-or-later
 * xblocks.c - blocks that are not malloc's (tests-xblocks.sh): a pool
 * allocator of the program's own that tells libmtrace (memleak.h) and,
 * when built with valgrind.h, valgrind (its MEMPOOL requests) which
 * blocks it carves from its malloc'd chunks, and anonymous mappings.
 * argv[1] names the case:
 *   main  - pool "kept": a block of 2001 bytes leaked, one of 2002 kept by
 *           a global, one of 2003 freed; pool "gone": blocks of 2011,
 *           2012 and 2013 bytes, then the pool destroyed and its chunk
 *           freed; a 64 KiB mapping leaked, a 128 KiB one kept by a
 *           global.  Every malloc block is still reachable (the chunk of
 *           "kept" only holds pool blocks).
 *   ops   - mappings changed after they were made: 3 pages, the middle
 *           one unmapped (two of 4096 bytes left, the first kept); 2 pages
 *           moved by mremap to 5 (kept); MAP_FIXED of one page over the
 *           first page of a kept 4-page mapping (3 pages of it left, the
 *           new page leaked); 2 pages mapped and unmapped whole.
 *   threads - two threads share a pool of 64-byte slots on a LIFO free
 *           list, taking the same slot in turn (300 rounds each); at the
 *           end a slot taken for 48 bytes is leaked, every other given
 *           back.  The log must stay in causal order across the threads
 *           (no address live twice).
 * Built at -O1 (a dead frame's pointer stays dead). */
#define _GNU_SOURCE
#include "util.h"
#include <memleak.h>
#include <mcheck.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/mman.h>
#ifdef WITH_VALGRIND
#include <valgrind/valgrind.h>
#else
#define VALGRIND_CREATE_MEMPOOL(pool, rz, zeroed) ((void)(pool))
#define VALGRIND_MEMPOOL_ALLOC(pool, addr, size) ((void)(pool))
#define VALGRIND_MEMPOOL_FREE(pool, addr) ((void)(pool))
#define VALGRIND_DESTROY_MEMPOOL(pool) ((void)(pool))
#define VALGRIND_MALLOCLIKE_BLOCK(addr, size, rz, zeroed) ((void)(addr))
#define VALGRIND_FREELIKE_BLOCK(addr, rz) ((void)(addr))
#endif

/* The pool: a header word at the chunk's start (so no pointer to the
 * chunk is a pointer to its first block), then blocks carved upwards. */
struct pool {
    memleak_pool id;
    char *chunk;
    size_t used;
};

#define POOL_HEADER 64

static void pool_init(struct pool *p, const char *name, size_t size)
{
    p->id = memleak_pool_create(name);
    p->chunk = malloc(size);
    memset(p->chunk, 0, size);
    p->used = POOL_HEADER;
    VALGRIND_CREATE_MEMPOOL(p, 0, 0);
}

static void *pool_get(struct pool *p, size_t n)
{
    void *b = p->chunk + p->used;
    p->used += (n + 15) & ~(size_t)15;
    memleak_pool_alloc(p->id, b, n);
    VALGRIND_MEMPOOL_ALLOC(p, b, n);
    return b;
}

static void pool_put(struct pool *p, void *b)
{
    memleak_pool_free(p->id, b);
    VALGRIND_MEMPOOL_FREE(p, b);
}

static void pool_fini(struct pool *p)
{
    memleak_pool_destroy(p->id);
    VALGRIND_DESTROY_MEMPOOL(p);
    free(p->chunk);
    p->chunk = NULL;
}

static void *map(size_t n)
{
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        abort();
    VALGRIND_MALLOCLIKE_BLOCK(m, n, 0, 0);
    memset(m, 1, 64);
    escape(m);
    return m;
}

struct pool kept_pool;
void *kept_block, *kept_map, *kept_map2, *kept_map3;

__attribute__((noinline)) static void case_main(void)
{
    struct pool gone;
    pool_init(&kept_pool, "kept", 8192);
    escape(pool_get(&kept_pool, 2001)); /* definitely lost */
    kept_block = pool_get(&kept_pool, 2002);
    pool_put(&kept_pool, pool_get(&kept_pool, 2003));
    pool_init(&gone, "gone", 8192);
    escape(pool_get(&gone, 2011));
    escape(pool_get(&gone, 2012));
    escape(pool_get(&gone, 2013));
    pool_fini(&gone);
    map(65536); /* definitely lost with mmap=1 */
    kept_map = map(131072);
}

__attribute__((noinline)) static void case_ops(void)
{
    char *three = map(3 * 4096);
    munmap(three + 4096, 4096);
    kept_map = three; /* the last page is lost */
    char *two = map(2 * 4096);
    kept_map2 = mremap(two, 2 * 4096, 5 * 4096, MREMAP_MAYMOVE);
    char *four = map(4 * 4096);
    char *over = mmap(four, 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    escape(over);
    kept_map3 = four + 4096;
    munmap(map(2 * 4096), 2 * 4096); /* made and unmapped whole: nothing */
}

/* ---- threads -------------------------------------------------------- */

#define SLOTS 8
#define ROUNDS 300
static struct pool shared;
static void *free_slot[SLOTS];
static int nfree;
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t turn[2];

static void *slot_take(size_t n)
{
    pthread_mutex_lock(&slot_lock);
    void *b = free_slot[--nfree];
    free_slot[nfree] = NULL;
    memleak_pool_alloc(shared.id, b, n);
    pthread_mutex_unlock(&slot_lock);
    return b;
}

static void slot_give(void *b)
{
    pthread_mutex_lock(&slot_lock);
    memleak_pool_free(shared.id, b);
    free_slot[nfree++] = b;
    pthread_mutex_unlock(&slot_lock);
}

/* Each round: thread 0 takes a slot and gives it back; thread 1 takes
 * the same slot (the free list is LIFO), writes enough lines of its own
 * for its log buffer to go out, and gives it back.  Thread 0's "#x" must
 * be in the log before thread 1's "#b" of the same address although
 * thread 0 writes nothing more in the meantime. */
static void *pingpong(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        sem_wait(&turn[me]);
        void *b = slot_take(64);
        for (int k = 0; me == 1 && k < 200; k++)
            free(used(malloc(24)));
        slot_give(b);
        sem_post(&turn[!me]);
    }
    return NULL;
}

__attribute__((noinline)) static void case_threads(void)
{
    shared.id = memleak_pool_create("slots");
    shared.chunk = malloc(SLOTS * 64 + POOL_HEADER);
    for (int i = 0; i < SLOTS; i++)
        free_slot[nfree++] = shared.chunk + POOL_HEADER + i * 64;
    sem_init(&turn[0], 0, 1);
    sem_init(&turn[1], 0, 0);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, pingpong, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    escape(slot_take(48)); /* definitely lost */
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    mtrace();
    if (strcmp(argv[1], "main") == 0)
        case_main();
    else if (strcmp(argv[1], "ops") == 0)
        case_ops();
    else if (strcmp(argv[1], "threads") == 0)
        case_threads();
    else
        return 2;
    return 0;
}
