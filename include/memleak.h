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

typedef int (*memleak_resource_fn_)(int, const char *, uintptr_t);

static inline memleak_resource_fn_ memleak_resource_fn_get_(void)
{
    static memleak_resource_fn_ fn;
    static int looked;
    if (!looked) {
        fn = (memleak_resource_fn_)dlsym(RTLD_DEFAULT, "libmtrace_resource");
        looked = 1;
    }
    return fn;
}

/* Resource ID of KIND (one word: "lock", "conn") was acquired here; 0, or
 * -1 when libmtrace.so is not loaded or not collecting. */
static inline int memleak_resource_acquire(const char *kind, uintptr_t id)
{
    memleak_resource_fn_ fn = memleak_resource_fn_get_();
    return fn ? fn(1, kind, id) : -1;
}

/* ... and released (a release of an id never acquired is warned about). */
static inline int memleak_resource_release(const char *kind, uintptr_t id)
{
    memleak_resource_fn_ fn = memleak_resource_fn_get_();
    return fn ? fn(0, kind, id) : -1;
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
