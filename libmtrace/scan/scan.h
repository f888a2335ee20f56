/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scan.h - the reachability scan at a report point: the steps of
 * roots.h, mark.h and classify.h run with the rest of the process
 * stopped (stopworld.h), and the verdicts written into the log as "#C"
 * and "#c" records (doc/format.md).
 *
 * Locks: the scan takes every tracer lock a stopped thread could hold
 * and the scan needs (the thread buffers', the log's, the live table's
 * shards, the registry of our mappings) before it stops anyone, in the
 * order the fork handler uses, so no thread is stopped inside one of
 * them; threads that want one meanwhile wait for it and are stopped
 * waiting.  Everything that may take the loader's lock (dl_iterate_phdr,
 * dlsym) is done before that.  While the world is stopped the scanner
 * uses raw system calls only: no malloc (a stopped thread may hold an
 * arena lock), no stdio, no loader.  GPL-3.0-or-later. */
#ifndef MT_SCAN_H
#define MT_SCAN_H
#include "scan/classify.h"
#include "scan/mark.h"
#include <stdint.h>

struct class_sum {
    uint64_t bytes, blocks;
};

struct scan_result {
    int done;            /* the scan ran and its verdicts hold       */
    const char *failure; /* when not: why (for the report)           */
    struct blockset bs;  /* the blocks and their verdicts (done)     */
    double seconds;      /* wall time, up to the world's resumption    */
    double cpu_seconds;  /* the scanning thread's CPU time, all of it  */
    unsigned threads;    /* threads of the process, the scanner's too */
    unsigned stopped;    /* other threads stopped                     */
    unsigned unstopped;  /* other threads that could not be           */
    const char *unstopped_why;
    uint64_t bytes_scanned, root_bytes;
    struct class_sum sum[VERDICT_COUNT];
    double stop_seconds;    /* the other threads were stopped this long */
    uint64_t stopped_at_ns; /* CLOCK_MONOTONIC when they were            */
};

/* When collection starts (recursion guard set, no lock held). */
void scan_init(void);
/* Runs a scan.  TRIGGER names the report point for the log record.
 * Called with the recursion guard set, the report lock held and no
 * tracer lock held.  Returns 0 when RES->done. */
int scan_run(struct scan_result *res, const char *trigger);
/* Releases the block table of a scan. */
void scan_release(struct scan_result *res);

/* Called by each of libmtrace's own threads when it starts: its stack
 * is no root and it is not stopped. */
void scan_own_thread_started(void);

/* At the top of each entry point from the program that may scan
 * (mtrace(), muntrace(), the C API, the exit handler): the program's
 * callee-saved registers are pushed into this function's frame, and the
 * scan of this thread's stack starts there, above libmtrace's own frames
 * (whose unused slots hold stale words of calls the program made
 * earlier at the same depth). */
#define SCAN_ENTRY()                                                           \
    do {                                                                       \
        __builtin_unwind_init();                                               \
        scan_set_entry((uintptr_t)__builtin_frame_address(0));                 \
    } while (0)
void scan_set_entry(uintptr_t frame);

/* The words SCAN_ENTRY()'s prologue pushes below the saved frame pointer:
 * the five other callee-saved registers (rbx, r12-r15). */
#define SCAN_ENTRY_SAVES (5 * sizeof(uintptr_t))

/* Where the program's live stack ends when the process ends
 * (lastframe.h): the next scan of this thread reads its stack from SP up,
 * and not the registers it has then (the exit path's).  0: no such
 * point, the scan starts at SCAN_ENTRY() as for a report.  Everything
 * below is dead: frames that returned, and the exit path's own (glibc's
 * and libmtrace's), whose unused slots hold stale words of earlier calls
 * at the same depth.  LeakSanitizer takes the same boundary. */
void scan_set_exit_sp(uintptr_t sp);
/* For an end by a signal (sigtramp.c): the context the kernel saved when
 * the signal interrupted this thread (a ucontext_t), for its next scan:
 * the stack is live from the interrupted stack pointer up (its red zone
 * too, unless the thread was in a system call) and the interrupted
 * registers are roots, as for a thread the scan stops. */
void scan_set_exit_context(const void *ucontext);
/* For an exit point in libmtrace's own wrapper (_exit()): the wrapper's
 * frame holds the caller's callee-saved registers. */
#define SCAN_EXIT_POINT()                                                      \
    do {                                                                       \
        __builtin_unwind_init();                                               \
        scan_set_exit_sp((uintptr_t)__builtin_frame_address(0) -               \
                         SCAN_ENTRY_SAVES);                                    \
    } while (0)

#endif
