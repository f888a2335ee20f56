/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memleak.h - ask libmtrace.so, from a program or its tests, for a report
 * and for the live heap's size, and check that a loop does not grow it.
 *
 * Safe without the preload: the calls are looked up at run time (dlsym),
 * so the program links and runs without libmtrace.so; every call then does
 * nothing (reports fail with -1, sizes read 0, assertions pass).
 * Define MEMLEAK_DISABLE to compile all of it out.
 *
 *   memleak_report("after warm-up");          // a report, labelled
 *   long b = memleak_live_bytes();
 *   memleak_savepoint sp;
 *   MEMLEAK_SAVE(sp);  ...  long grown = MEMLEAK_COMPARE(sp);
 *   for (int i = 0; i < 100; i++) {
 *       handle_request();
 *       MEMLEAK_ASSERT_NO_GROWTH(sp, i, 10);  // no growth after 10 rounds
 *   }
 *
 * A program's own allocator (pools, arenas, slab caches) tells which
 * blocks it carved from its chunks; they are reported as blocks of kind
 * "pool", with their stacks and reachability classes (README.md, Pools):
 *
 *   memleak_pool p = memleak_pool_create("requests");
 *   memleak_pool_alloc(p, obj, sizeof *obj);  // after carving obj
 *   memleak_pool_free(p, obj);                // when it goes back
 *   memleak_pool_destroy(p);                  // every block of p ends
 *
 * The figures are process-wide: other threads' allocations count too.
 *
 * Resources other than memory (locks, handles, connections), by kind and
 * id; mtrace-check lists those never released with the acquiring stack:
 *   memleak_resource_acquire("lock", (uintptr_t)&m);
 *   memleak_resource_release("lock", (uintptr_t)&m);
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MEMLEAK_H
#define MEMLEAK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by libmtrace.so (use the wrappers below). */
int libmtrace_report(const char *label);
int libmtrace_live(long *bytes, long *blocks);
unsigned long libmtrace_pool_create(const char *name);
void libmtrace_pool_alloc(unsigned long pool, const void *ptr,
                          unsigned long size);
void libmtrace_pool_free(unsigned long pool, const void *ptr);
void libmtrace_pool_destroy(unsigned long pool);

/* A pool's handle; 0 when libmtrace.so is not loaded or not collecting
 * (its calls then do nothing). */
typedef unsigned long memleak_pool;
int libmtrace_resource(int acquire, const char *kind, uintptr_t id);

typedef struct {
    long bytes, blocks;
    int valid;
} memleak_savepoint;

#ifndef MEMLEAK_DISABLE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*memleak_report_fn_)(const char *);
typedef int (*memleak_live_fn_)(long *, long *);

static inline memleak_report_fn_ memleak_report_fn_get_(void)
{
    static memleak_report_fn_ fn;
    static int looked;
    if (!looked) {
        fn = (memleak_report_fn_)dlsym(RTLD_DEFAULT, "libmtrace_report");
        looked = 1;
    }
    return fn;
}

static inline memleak_live_fn_ memleak_live_fn_get_(void)
{
    static memleak_live_fn_ fn;
    static int looked;
    if (!looked) {
        fn = (memleak_live_fn_)dlsym(RTLD_DEFAULT, "libmtrace_live");
        looked = 1;
    }
    return fn;
}

/* Writes a report now (see doc/report.md); 0, or -1 when libmtrace.so is
 * not loaded, not collecting, or the report could not be written. */
static inline int memleak_report(const char *label)
{
    memleak_report_fn_ fn = memleak_report_fn_get_();
    return fn ? fn(label) : -1;
}

/* 1 when libmtrace.so is loaded and collecting. */
static inline int memleak_active(void)
{
    long bytes, blocks;
    memleak_live_fn_ fn = memleak_live_fn_get_();
    return fn && fn(&bytes, &blocks) == 0;
}

static inline long memleak_live_bytes(void)
{
    long bytes = 0, blocks = 0;
    memleak_live_fn_ fn = memleak_live_fn_get_();
    if (fn)
        fn(&bytes, &blocks);
    return bytes;
}

static inline long memleak_live_blocks(void)
{
    long bytes = 0, blocks = 0;
    memleak_live_fn_ fn = memleak_live_fn_get_();
    if (fn)
        fn(&bytes, &blocks);
    return blocks;
}

static inline void memleak_save_(memleak_savepoint *sp)
{
    memleak_live_fn_ fn = memleak_live_fn_get_();
    sp->bytes = sp->blocks = 0;
    sp->valid = fn && fn(&sp->bytes, &sp->blocks) == 0;
}

/* Live bytes gained since the savepoint (negative: shrunk). */
static inline long memleak_compare_(const memleak_savepoint *sp)
{
    long bytes = 0, blocks = 0;
    memleak_live_fn_ fn = memleak_live_fn_get_();
    if (!sp->valid || !fn || fn(&bytes, &blocks) != 0)
        return 0;
    return bytes - sp->bytes;
}

static inline void memleak_assert_no_growth_(memleak_savepoint *sp,
                                             long iteration, long warmup,
                                             const char *file, int line)
{
    if (iteration == warmup) {
        memleak_save_(sp);
        return;
    }
    long grown = iteration > warmup ? memleak_compare_(sp) : 0;
    if (grown <= 0)
        return;
    char label[256];
    snprintf(label, sizeof label,
             "MEMLEAK_ASSERT_NO_GROWTH failed at %s:%d, iteration %ld", file,
             line, iteration);
    memleak_report(label);
    fprintf(stderr, "%s: live heap grew by %ld bytes since iteration %ld\n",
            label, grown, warmup);
    abort();
}

/* dlsym of libmtrace's NAME, looked up once per call site's CACHE. */
static inline void *memleak_sym_(const char *name, void **cache, int *looked)
{
    if (!*looked) {
        *cache = dlsym(RTLD_DEFAULT, name);
        *looked = 1;
    }
    return *cache;
}

typedef unsigned long (*memleak_pool_create_fn_)(const char *);
typedef void (*memleak_pool_alloc_fn_)(unsigned long, const void *,
                                       unsigned long);
typedef void (*memleak_pool_free_fn_)(unsigned long, const void *);
typedef void (*memleak_pool_destroy_fn_)(unsigned long);

#define MEMLEAK_SYM_(type, name)                                               \
    static void *cache_;                                                       \
    static int looked_;                                                        \
    type fn_ = (type)memleak_sym_(name, &cache_, &looked_)

/* A new pool named NAME (for reports); 0 without libmtrace.so. */
static inline memleak_pool memleak_pool_create(const char *name)
{
    MEMLEAK_SYM_(memleak_pool_create_fn_, "libmtrace_pool_create");
    return fn_ ? fn_(name) : 0;
}

/* [PTR, PTR+SIZE) is a block of POOL from now on, allocated here. */
static inline void memleak_pool_alloc(memleak_pool pool, const void *ptr,
                                      unsigned long size)
{
    MEMLEAK_SYM_(memleak_pool_alloc_fn_, "libmtrace_pool_alloc");
    if (fn_ && pool)
        fn_(pool, ptr, size);
}

/* The block of POOL at PTR is freed. */
static inline void memleak_pool_free(memleak_pool pool, const void *ptr)
{
    MEMLEAK_SYM_(memleak_pool_free_fn_, "libmtrace_pool_free");
    if (fn_ && pool)
        fn_(pool, ptr);
}

/* Every block of POOL is freed at once; the handle is not to be used
 * again. */
static inline void memleak_pool_destroy(memleak_pool pool)
{
    MEMLEAK_SYM_(memleak_pool_destroy_fn_, "libmtrace_pool_destroy");
    if (fn_ && pool)
        fn_(pool);
}

typedef int (*memleak_resource_fn_)(int, const char *, uintptr_t);

/* Resource ID of KIND (one word: "lock", "conn") was acquired here; 0, or
 * -1 when libmtrace.so is not loaded or not collecting. */
static inline int memleak_resource_acquire(const char *kind, uintptr_t id)
{
    MEMLEAK_SYM_(memleak_resource_fn_, "libmtrace_resource");
    return fn_ ? fn_(1, kind, id) : -1;
}

/* ... and released (a release of an id never acquired is warned about). */
static inline int memleak_resource_release(const char *kind, uintptr_t id)
{
    MEMLEAK_SYM_(memleak_resource_fn_, "libmtrace_resource");
    return fn_ ? fn_(0, kind, id) : -1;
}

#define MEMLEAK_SAVE(sp) memleak_save_(&(sp))
#define MEMLEAK_COMPARE(sp) memleak_compare_(&(sp))
#define MEMLEAK_ASSERT_NO_GROWTH(sp, iteration, warmup)                        \
    memleak_assert_no_growth_(&(sp), (iteration), (warmup), __FILE__, __LINE__)

#else /* MEMLEAK_DISABLE */

#define memleak_report(label) ((void)(label), -1)
#define memleak_active() 0
#define memleak_live_bytes() 0L
#define memleak_live_blocks() 0L
#define memleak_pool_create(name) ((void)(name), (memleak_pool)0)
#define memleak_pool_alloc(pool, ptr, size)                                    \
    ((void)(pool), (void)(ptr), (void)(size))
#define memleak_pool_free(pool, ptr) ((void)(pool), (void)(ptr))
#define memleak_pool_destroy(pool) ((void)(pool))
#define memleak_resource_acquire(kind, id) ((void)(kind), (void)(id), -1)
#define memleak_resource_release(kind, id) ((void)(kind), (void)(id), -1)
#define MEMLEAK_SAVE(sp) ((void)(sp))
#define MEMLEAK_COMPARE(sp) ((void)(sp), 0L)
#define MEMLEAK_ASSERT_NO_GROWTH(sp, iteration, warmup)                        \
    ((void)(sp), (void)(iteration), (void)(warmup))

#endif /* MEMLEAK_DISABLE */

#ifdef __cplusplus
}
#endif
#endif /* MEMLEAK_H */
