/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stopworld.h - stops every other thread of the process with a signal and
 * lets them go again, the way Boehm GC's pthread_stop_world does (never
 * ptrace: that fails under gdb, strace, and in containers without
 * SYS_PTRACE).  Each thread's handler saves its registers from the
 * ucontext and its stack pointer, answers, and waits on a futex until
 * the scan is over.
 *
 * The signal is SIGURG: debuggers pass it on without stopping (gdb's
 * default), programs almost never use it and its default action is to
 * ignore it.  Our handler is installed for each stop and the program's
 * action put back after it; a SIGURG that is not ours goes to the
 * program's handler.
 *
 * The handler stops a thread wherever it is, inside the tracer too (it
 * does not wait for the thread to leave it, as deferred signals do):
 * the scan takes every tracer lock it needs before it stops anyone
 * (scan.h), so a thread inside the tracer holds none of them, and one
 * that waits for them would never leave the tracer to stop.  The
 * handler is installed with real_sigaction() (real.h), past the wrapper
 * that keeps the program's own handlers out of the tracer.
 *
 * Threads that do not answer: gone threads are dropped; a thread with
 * the signal blocked that sleeps in a system call is given up at once
 * (its whole stack is scanned, see roots.c); any other is given up after
 * STOP_TIMEOUT_MS.  Threads created meanwhile are found by reading
 * /proc/self/task again until no new one appears.  The caller must hold
 * no lock a stopped thread could need; everything here is raw system
 * calls (no malloc, no stdio).  GPL-3.0-or-later. */
#ifndef MT_STOPWORLD_H
#define MT_STOPWORLD_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STOP_SIGNAL SIGURG
#define STOP_TIMEOUT_MS 5000
/* General registers (x86-64's 23) and the 16 SSE registers. */
#define STOP_REG_WORDS (23 + 32)

enum stop_state {
    STOP_EMPTY,     /* free slot                                     */
    STOP_WANTED,    /* signalled, no answer yet                      */
    STOP_TAKING,    /* its handler is saving its registers           */
    STOP_DONE,      /* stopped, registers saved                      */
    STOP_GONE,      /* exited meanwhile                              */
    STOP_ABANDONED, /* could not be stopped (see why)                */
    STOP_SKIPPED,   /* one of libmtrace's own threads: not a root    */
};

struct stopped_thread {
    pid_t tid;
    atomic_int state;
    uintptr_t sp, tp; /* interrupted stack pointer, thread pointer  */
    uintptr_t regs[STOP_REG_WORDS];
    uintptr_t alt_lo, alt_hi; /* its sigaltstack, if any (SP in it: the
                               * thread was in a handler there)       */
    const char *why;          /* STOP_ABANDONED: the reason            */
};

struct world {
    struct stopped_thread *threads; /* slots, some empty (tid 0)       */
    size_t nslots;
    unsigned stopped, abandoned, gone;
    pid_t self;
};

/* Before taking any lock: room for the threads there are now (maps
 * memory).  Returns 0, or -1 when out of memory. */
int world_prepare(void);
/* Stops every thread but the caller and the SKIP ones.  Returns 0, or -1
 * when /proc/self/task cannot be read (nothing is stopped then). */
int world_stop(struct world *w, const pid_t *skip, size_t nskip);
void world_resume(struct world *w);

#endif
