/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control.c - start-up, configuration and the program-facing controls:
 * mtrace(), muntrace(), the MEMLEAK_CONFIG=mtraceinit constructor, the exit
 * handler, and the wrappers that keep the log whole across dlclose() and
 * _exit() and daemon(). */
#define _GNU_SOURCE
#include "interpose/control.h"
#include "base/config.h"
#include "base/sysfd.h"
#include "base/diag.h"
#include "base/export.h"
#include "track/forkgate.h"
#include "base/guard.h"
#include "scan/heapwalk.h"
#include "scan/periodic.h"
#include "unwind/lastframe.h"
#include "base/real.h"
#include "scan/report.h"
#include "base/sampler.h"
#include "scan/scan.h"
#include "interpose/sigtramp.h"
#include "base/spin.h"
#include "scan/suppress.h"
#include "log/tracelog.h"
#include "track/livemode.h"
#include "track/tracer.h"
#include "track/offload.h"
#include "unwind/unwind.h"
#include "base/valgrind.h"
#include "base/writer.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
static int configured;
static char trace_path_copy[4096];

extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

/* libstdc++'s hook to release its own memory at exit; absent in C programs. */
extern void _ZN9__gnu_cxx9__freeresEv(void) __attribute__((weak));

/* Problems with MEMLEAK_CONFIG, one line each. */
static void warn_config(const char *message)
{
    diag(message, NULL);
}

/* A live log (log=live) holds the "+" lines of the live blocks only: a
 * classic log has no stack records to write them from at a report point,
 * and a sampled one no scan; both keep the full log. */
static void live_log_fits(void)
{
    if (mt_config.log != LOG_LIVE || !(mt_config.classic || mt_config.sample))
        return;
    diag("MEMLEAK_CONFIG: log=live does not go with ",
         mt_config.classic ? "classic" : "sample=",
         ": the full log is written", NULL);
    mt_config.log = LOG_FULL;
}

/* MEMLEAK_CONFIG, read once when the library loads (mtraceinit must be
 * known then). */
static void configure(void)
{
    if (configured)
        return;
    configured = 1;
    config_defaults(&mt_config);
    config_parse(&mt_config, secure_getenv("MEMLEAK_CONFIG"), warn_config);
    /* A classic log has no header to say it is sampled: its blocks would
     * pass for every block. */
    if (mt_config.classic && mt_config.sample) {
        diag("MEMLEAK_CONFIG: sample= needs the extended log, not classic: "
             "sampling is off",
             NULL);
        mt_config.sample = 0;
    }
    live_log_fits();
}

/* MALLOC_TRACE, read when collection starts, as glibc does: a program may
 * set it itself before calling mtrace().  Copied, because the program may
 * change its environment again. */
static void read_trace_path(void)
{
    const char *path = secure_getenv("MALLOC_TRACE");
    if (path == NULL || *path == '\0')
        return;
    if (strlen(path) >= sizeof trace_path_copy) {
        diag("MALLOC_TRACE is longer than 4095 bytes: no log is written", NULL);
        return;
    }
    strcpy(trace_path_copy, path);
    mt_trace_path = trace_path_copy;
}

/* With mtraceinit, a report at exit when the user asked for reports
 * (report=, signal=) or when there is no log to hold the verdicts: a
 * wrapper, a shell script or a shim that runs under mtraceinit with a
 * log leaves no report file per process. */
static int report_at_exit(void)
{
    return mt_config.mtraceinit &&
           (mt_config.report[0] || mt_config.signal || !tracelog_logging());
}

/* The verdicts of a process that ends: a report (above), else the log's
 * records.  The caller has set where the scan of this thread's stack
 * starts (SCAN_ENTRY, scan_set_exit_sp). */
static void verdicts_at_end(void)
{
    GUARD_SCOPE(entered);
    if (entered)
        periodic_pause(); /* this scan is the last; never resumed */
    if (entered && tracer_active() && report_at_exit())
        report_write("exit", NULL);
    else if (entered && tracer_active() && tracelog_logging())
        report_verdicts("exit"); /* the log still gets its verdicts */
}

void control_verdicts_at_death(const void *ucontext)
{
    scan_set_exit_context(ucontext);
    verdicts_at_end();
    scan_set_exit_context(NULL); /* when no scan ran */
}

/* As glibc's mtrace does at exit: let libc and libstdc++ free what they
 * keep for the process's lifetime, so it is not reported as leaked; then
 * write out the log. */
static void release_and_flush_at_exit(void *unused)
{
    (void)unused;
    SCAN_ENTRY();
    uintptr_t exit_sp = lastframe_exit_sp(0);
    {
        GUARD_SCOPE(entered);
        scan_set_exit_sp(exit_sp);
        if (entered) /* the signal's reports first: they were asked before */
            report_write_asked();
    }
    scan_set_exit_sp(exit_sp);
    verdicts_at_end(); /* before freeres: the program's */
    if (tracer_active()) {
        if (_ZN9__gnu_cxx9__freeresEv)
            _ZN9__gnu_cxx9__freeresEv();
        __libc_freeres();
    }
    /* exit() from a signal handler that interrupted the tracer: this
     * thread may hold the log lock, so the buffer is left as it is. */
    GUARD_SCOPE(entered);
    /* freeres' "-" lines out; what later destructors free, inline. */
    offload_stop();
    if (entered)
        tracelog_exit();
}

/* _exit(), quick_exit(), exec: every line out, and "#e REASON". */
static void end_log(const char *reason)
{
    GUARD_SCOPE(entered);
    if (entered && tracer_started()) {
        periodic_pause(); /* no scan's records after "#e" */
        offload_stop(); /* the ring's "-" lines before "#e" */
        if (tracer_active())
            livemode_write(); /* a live log's blocks that are not in it */
        tracelog_end(reason, 0, 0);
    }
}

/* quick_exit() runs neither atexit handlers nor our _exit(): the
 * verdicts and the log's end from an at_quick_exit handler (no freeres:
 * that is exit's). */
static void flush_at_quick_exit(void)
{
    SCAN_ENTRY();
    scan_set_exit_sp(lastframe_exit_sp(1));
    verdicts_at_end();
    end_log(MTF_END_EXIT);
}

/* Under a valgrind tool that replaces the allocator nothing reaches our
 * wrappers (valgrind.c): said on stderr, and in the log, which is opened
 * for it (its header carries untraced=). */
static void say_if_untraced(void)
{
    const char *tool = valgrind_allocator();
    if (tool == NULL)
        return;
    diag("valgrind's allocator (its tool '", tool,
         "') replaces libmtrace's: nothing is traced in this process; run "
         "it without valgrind, or under valgrind --tool=none", NULL);
    tracelog_note("not traced: valgrind's ", tool,
                  " replaces malloc and free in this process");
}

static void start_collection(void)
{
    GUARD_SCOPE(entered);
    mutex_lock(&control_lock, LOCK_RANK_CONTROL);
    configure();
    if (!tracer_started()) {
        read_trace_path();
        gate_init();
        unwind_select(mt_config.unwind);
        unwind_warm_up(tracer_unwind_slot());
        pthread_atfork(tracer_fork_prepare, tracer_fork_parent,
                       tracer_fork_child);
        /* Not atexit(): that ties the handler to this library, and with
         * mtraceinit (registered before main) it would then run inside
         * _dl_fini, where libc can no longer unload what it dlopen()ed. */
        __cxa_atexit(release_and_flush_at_exit, NULL, NULL);
        at_quick_exit(flush_at_quick_exit);
        report_start_clock();
        sampler_configure((size_t)mt_config.sample, (uint64_t)mt_config.seed);
        suppress_load(mt_config.suppressions);
        scan_init();
        offload_set_thread_hook(scan_own_thread_started); /* never stopped */
        if (mt_config.reach && !mt_sample_rate)
            heapwalk_snapshot(); /* the blocks live before we collect */
        tracer_start();
        say_if_untraced();
        report_watch_signal(mt_config.signal, sigtramp_sigaction);
        if (mt_config.reach && !mt_sample_rate && !mt_config.classic &&
            tracelog_logging())
            periodic_start(mt_config.scan_every);
        sigtramp_watch_fatal();
    }
    mutex_unlock(&control_lock, LOCK_RANK_CONTROL);
}

/* The first call starts collection; each later one writes a report (it
 * never restarts or truncates the log). */
MT_EXPORT void mtrace(void)
{
    SCAN_ENTRY();
    if (!tracer_started()) {
        start_collection();
        return;
    }
    GUARD_SCOPE(entered);
    if (entered && tracer_active())
        report_write("mtrace", NULL);
}

/* A final report, "= End", and collection stops. */
MT_EXPORT void muntrace(void)
{
    SCAN_ENTRY();
    GUARD_SCOPE(entered);
    if (entered && tracer_active())
        report_write("muntrace", NULL);
    tracer_stop();
}

__attribute__((constructor)) static void on_load(void)
{
    /* What costs a grace period of the kernel's once threads exist. */
    gate_init();
    writer_grow_fd_table();
    lastframe_init();
    {
        GUARD_SCOPE(entered);
        mutex_lock(&control_lock, LOCK_RANK_CONTROL);
        configure();
        mutex_unlock(&control_lock, LOCK_RANK_CONTROL);
    }
    if (mt_config.mtraceinit)
        start_collection();
}

static int strip_deepbind(const char *file, int mode)
{
    GUARD_SCOPE(entered);
    if (!entered)
        return mode;
    tracelog_note("dlopen(", file ? file : "NULL",
                  ", RTLD_DEEPBIND): flag removed, so that the library's "
                  "allocations stay traced");
    return mode & ~RTLD_DEEPBIND;
}

/* RTLD_DEEPBIND makes a library bind malloc and free to libc's own, past
 * this preload: blocks would then change hands unseen and the log would be
 * wrong.  The flag is removed (as heaptrack does) and the log says so.
 * Every path ends in a tail call, so glibc still sees the program's return
 * address, which chooses the search path ($ORIGIN, RUNPATH) and the
 * namespace. */
MT_EXPORT void *dlopen(const char *file, int mode)
{
    static void *(*real_dlopen)(const char *, int);
    if (real_dlopen == NULL)
        real_dlopen = (void *(*)(const char *, int))real_next_symbol("dlopen");
    if ((mode & RTLD_DEEPBIND) && tracer_active())
        mode = strip_deepbind(file, mode);
    return real_dlopen(file, mode);
}

/* dlclose() may unload code that stacks point into: note it in the log,
 * and resolve addresses anew from then on.  It runs inside the fork gate
 * (forkgate.h).  (dlopen() cannot be: it must end in a tail call.) */
MT_EXPORT int dlclose(void *handle)
{
    static int (*real_dlclose)(void *);
    if (real_dlclose == NULL)
        real_dlclose = (int (*)(void *))real_next_symbol("dlclose");
    if (real_dlclose == NULL)
        return -1;
    if (!tracer_started())
        return real_dlclose(handle);
    tracer_before_dlclose();
    gate_enter();
    int result = real_dlclose(handle);
    gate_leave();
    if (result == 0 && tracer_active()) {
        GUARD_SCOPE(entered);
        if (entered)
            tracer_after_dlclose();
    }
    return result;
}

/* _exit() skips atexit handlers: the verdicts (the stack is live from
 * the caller up), then the buffered log, are written first.  Not in a
 * vfork() child, which runs with the recursion guard set (vfork.c).
 * Noreturn, so never a tail call: the caller's frame holds the exit
 * point's registers. */
static __attribute__((noreturn, noinline)) void end_process(int status)
{
    /* A vfork() child shares its parent's thread-local exit point: it
     * must not leave it set for the parent's next scan. */
    if (guard_is_set())
        scan_set_exit_sp(0);
    verdicts_at_end();
    end_log(MTF_END_EXIT);
    for (;;)
        syscall(SYS_exit_group, status);
}

MT_EXPORT void _exit(int status)
{
    SCAN_EXIT_POINT();
    end_process(status);
}

MT_EXPORT void _Exit(int status)
{
    SCAN_EXIT_POINT();
    end_process(status);
}

/* glibc's daemon() forks and ends the parent with its internal _exit(),
 * past our wrapper, so the parent's log would end without its "#e".  The
 * same steps as glibc 2.36's misc/daemon.c, through our _exit(). */
MT_EXPORT int daemon(int nochdir, int noclose)
{
    switch (fork()) {
    case -1:
        return -1;
    case 0:
        break;
    default:
        _exit(0);
    }
    if (setsid() == -1)
        return -1;
    if (!nochdir)
        (void)chdir("/");
    if (noclose)
        return 0;
    struct stat st;
    int fd = sys_open("/dev/null", O_RDWR);
    if (fd == -1 || fstat(fd, &st) != 0) {
        if (fd != -1)
            sys_close(fd);
        return -1;
    }
    if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)) {
        sys_close(fd);
        errno = ENODEV; /* no call failed: glibc sets it too */
        return -1;
    }
    sys_dup2(fd, STDIN_FILENO);
    sys_dup2(fd, STDOUT_FILENO);
    sys_dup2(fd, STDERR_FILENO);
    if (fd > 2)
        sys_close(fd);
    return 0;
}
