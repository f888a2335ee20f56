/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.c - see report.h and doc/report.md.  Reports are written by the
 * thread that asks (mtrace(), muntrace(), the API, exit) or by our reporter
 * thread (signal), never inside a signal handler and never under a tracer
 * lock; they read the stacks' counters without stopping the program.
 */
#define _GNU_SOURCE
#include "scan/report.h"
#include "base/sysfd.h"
#include "../include/mtrace-format.h"
#include "base/arena.h"
#include "base/config.h"
#include "track/counters.h"
#include "base/diag.h"
#include "symbols/elfsyms.h"
#include "base/fmt.h"
#include "base/guard.h"
#include "base/ownthread.h"
#include "scan/leakreport.h"
#include "log/logfile.h"
#include "symbols/modmap.h"
#include "base/sampler.h"
#include "scan/scan.h"
#include "base/sigdefer.h"
#include "symbols/stacktab.h"
#include "log/tracelog.h"
#include "track/tracer.h"
#include "base/writer.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include "base/spin.h"
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define REPORT_BUFFER_SIZE (1 << 16)
#define MAX_LISTED_STACKS 100
#define MAX_LISTED_FRAMES 50

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static char report_buffer[REPORT_BUFFER_SIZE];
static unsigned long report_seq;
static struct timespec clock_zero, previous_report;

/* One stack's figures for this report. */
struct stack_row {
    struct stack *s;
    long live_bytes, live_blocks, delta_bytes, delta_blocks;
    long interval_allocs, interval_alloc_bytes;
};

/* Live bytes held through one frame, at any depth. */
struct frame_row {
    struct frame *f;
    long bytes, blocks;
};

static double seconds_between(const struct timespec *a,
                              const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The stacks with definitely lost blocks at the latest scan (report lock). */
static uint8_t *definite_before;
static size_t definite_before_bits;

static void forget_stack_history(struct stack *s, void *arg)
{
    (void)arg;
    s->prev_bytes = s->prev_blocks = s->prev_allocs = s->prev_alloc_bytes = 0;
}

/* A fork child's reports start from nothing, as its counters do. */
static void report_after_fork_child(void)
{
    stacktab_each(forget_stack_history, NULL);
    leakreport_free_bits(definite_before, definite_before_bits);
    definite_before = NULL;
    definite_before_bits = 0;
}

void report_start_clock(void)
{
    clock_gettime(CLOCK_MONOTONIC, &clock_zero);
    previous_report = clock_zero;
    pthread_atfork(NULL, NULL, report_after_fork_child);
}

/* ---- gathering ---------------------------------------------------------- */

struct gather {
    struct stack_row *rows;
    size_t n, cap;
    long live_bytes, live_blocks, allocs, frees;
    long prev_bytes, prev_blocks, prev_allocs, prev_frees;
};

/* A stack's counters in blocks (sampling mode keeps fractions of them). */
static void sum_counts(struct stack *s, struct stack_counts *c)
{
    counters_sum(stack_id(s), c);
    long unit = sampler_count_unit();
    if (unit > 1) {
        c->allocs = (c->allocs + unit / 2) / unit;
        c->frees = (c->frees + unit / 2) / unit;
    }
}

static void gather_stack(struct stack *s, void *arg)
{
    struct gather *g = arg;
    struct stack_row r = { .s = s };
    struct stack_counts c;
    sum_counts(s, &c);
    r.live_bytes = c.alloc_bytes - c.freed_bytes;
    r.live_blocks = c.allocs - c.frees;
    long allocs = c.allocs, alloc_bytes = c.alloc_bytes, frees = c.frees;
    r.delta_bytes = r.live_bytes - s->prev_bytes;
    r.delta_blocks = r.live_blocks - s->prev_blocks;
    r.interval_allocs = allocs - s->prev_allocs;
    r.interval_alloc_bytes = alloc_bytes - s->prev_alloc_bytes;
    g->live_bytes += r.live_bytes;
    g->live_blocks += r.live_blocks;
    g->allocs += allocs;
    g->frees += frees;
    g->prev_bytes += s->prev_bytes;
    g->prev_blocks += s->prev_blocks;
    g->prev_allocs += s->prev_allocs;
    /* frees before = allocs before - blocks live before */
    g->prev_frees += s->prev_allocs - s->prev_blocks;
    s->prev_bytes = r.live_bytes;
    s->prev_blocks = r.live_blocks;
    s->prev_allocs = allocs;
    s->prev_alloc_bytes = alloc_bytes;
    int active = r.live_blocks || r.delta_blocks || r.delta_bytes ||
                 r.interval_allocs;
    if (active && g->n < g->cap)
        g->rows[g->n++] = r;
}

static int by_delta_then_live(const void *a, const void *b)
{
    const struct stack_row *x = a, *y = b;
    if (x->delta_bytes != y->delta_bytes)
        return x->delta_bytes > y->delta_bytes ? -1 : 1;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    return stack_id(x->s) < stack_id(y->s) ? -1 : 1;
}

static int by_bytes(const void *a, const void *b)
{
    const struct frame_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->f->addr < y->f->addr ? -1 : (x->f->addr > y->f->addr);
}

static void sum_live(struct stack *s, void *arg)
{
    long *totals = arg;
    struct stack_counts c;
    sum_counts(s, &c);
    totals[0] += c.alloc_bytes - c.freed_bytes;
    totals[1] += c.allocs - c.frees;
}

void report_live(long *bytes, long *blocks)
{
    long totals[2] = { 0, 0 };
    if (sampler_count_unit() == 1) { /* no stack's count to round */
        struct stack_counts c;
        counters_total(&c);
        totals[0] = c.alloc_bytes - c.freed_bytes;
        totals[1] = c.allocs - c.frees;
    } else
        stacktab_each(sum_live, totals);
    *bytes = totals[0];
    *blocks = totals[1];
}

/* Live bytes per frame: a frame counts once per stack even when the stack
 * recurses through it.  TABLE is open addressing keyed by frame. */
static void add_frame_bytes(struct frame_row *table, size_t mask,
                            struct frame *f, long bytes, long blocks)
{
    size_t i = (((uintptr_t)f >> 4) * 0x9e3779b97f4a7c15ull >> 20) & mask;
    while (table[i].f && table[i].f != f)
        i = (i + 1) & mask;
    table[i].f = f;
    table[i].bytes += bytes;
    table[i].blocks += blocks;
}

static int seen_earlier(struct stack *s, unsigned k)
{
    for (unsigned j = 0; j < k; j++)
        if (s->frames[j] == s->frames[k])
            return 1;
    return 0;
}

/* Fills TABLE (2^n slots) from ROWS, then packs the used slots at its
 * start sorted by bytes; returns how many. */
static size_t frames_by_bytes(const struct gather *g, struct frame_row *table,
                              size_t slots)
{
    for (size_t r = 0; r < g->n; r++) {
        struct stack *s = g->rows[r].s;
        if (g->rows[r].live_bytes <= 0)
            continue;
        for (unsigned k = 0; k < s->depth; k++)
            if (!seen_earlier(s, k))
                add_frame_bytes(table, slots - 1, s->frames[k],
                                g->rows[r].live_bytes, g->rows[r].live_blocks);
    }
    size_t n = 0;
    for (size_t i = 0; i < slots; i++)
        if (table[i].f)
            table[n++] = table[i];
    qsort(table, n, sizeof *table, by_bytes);
    return n;
}

/* ---- writing ------------------------------------------------------------ */

static void put_signed(struct writer *w, long v)
{
    writer_putc(w, v < 0 ? '-' : '+');
    writer_dec(w, (uint64_t)(v < 0 ? -v : v));
}

static void put_key(struct writer *w, const char *key, long v)
{
    writer_puts(w, key);
    writer_putc(w, ' ');
    if (v < 0) {
        writer_putc(w, '-');
        v = -v;
    }
    writer_dec(w, (uint64_t)v);
    writer_putc(w, '\n');
}

/* Fixed-point with one decimal: rates need no more. */
static void put_rate(struct writer *w, double v)
{
    long tenths = (long)(v * 10 + 0.5);
    writer_dec(w, (uint64_t)(tenths / 10));
    writer_putc(w, '.');
    writer_dec(w, (uint64_t)(tenths % 10));
}

static void put_seconds(struct writer *w, const char *key, double v)
{
    long ms = (long)(v * 1000 + 0.5);
    char frac[4] = { (char)('0' + ms / 100 % 10), (char)('0' + ms / 10 % 10),
                     (char)('0' + ms % 10), '\0' };
    writer_puts(w, key);
    writer_putc(w, ' ');
    writer_dec(w, (uint64_t)(ms / 1000));
    writer_putc(w, '.');
    writer_puts(w, frac);
    writer_putc(w, '\n');
}

static void put_two_digits(struct writer *w, int v, char after)
{
    char t[3] = { (char)('0' + v / 10 % 10), (char)('0' + v % 10), after };
    writer_put(w, t, after ? 3 : 2);
}

static void put_utc_time(struct writer *w)
{
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    writer_puts(w, "time ");
    writer_dec(w, (uint64_t)(tm.tm_year + 1900));
    writer_putc(w, '-');
    put_two_digits(w, tm.tm_mon + 1, '-');
    put_two_digits(w, tm.tm_mday, 'T');
    put_two_digits(w, tm.tm_hour, ':');
    put_two_digits(w, tm.tm_min, ':');
    put_two_digits(w, tm.tm_sec, 'Z');
    writer_putc(w, '\n');
}

/* "NAME+0xSYMOFF (PATH+0xOFF)", the form mtrace-check reads back.  A
 * frame dladdr could not name is looked up in the module's .symtab. */
static void put_frame(struct writer *w, const struct frame *f)
{
    uintptr_t sym_off = f->symbol_offset;
    const char *name = f->symbol;
    if (name == NULL && f->mod)
        name = elfsyms_lookup(f->mod, f->offset, &sym_off);
    if (name) {
        writer_puts(w, name);
        writer_puts(w, "+");
        writer_ptr(w, sym_off);
    } else {
        writer_puts(w, "??");
    }
    writer_puts(w, " (");
    if (f->mod) {
        writer_puts(w, f->mod->path);
        writer_putc(w, '+');
        writer_ptr(w, f->offset);
    } else {
        writer_ptr(w, f->addr);
    }
    writer_puts(w, ")\n");
}

static void put_stack_row(struct writer *w, const struct stack_row *r,
                          double interval)
{
    writer_puts(w, "stack ");
    writer_dec(w, stack_id(r->s));
    writer_puts(w, " live-bytes ");
    writer_dec(w, (uint64_t)(r->live_bytes > 0 ? r->live_bytes : 0));
    writer_puts(w, " live-blocks ");
    writer_dec(w, (uint64_t)(r->live_blocks > 0 ? r->live_blocks : 0));
    writer_puts(w, " delta-bytes ");
    put_signed(w, r->delta_bytes);
    writer_puts(w, " delta-blocks ");
    put_signed(w, r->delta_blocks);
    writer_puts(w, " allocs-per-s ");
    put_rate(w, interval > 0 ? r->interval_allocs / interval : 0);
    writer_puts(w, " bytes-per-s ");
    put_rate(w, interval > 0 ? r->interval_alloc_bytes / interval : 0);
    writer_putc(w, '\n');
    for (unsigned k = 0; k < r->s->depth; k++) {
        writer_puts(w, "  #");
        writer_dec(w, k);
        writer_putc(w, ' ');
        put_frame(w, r->s->frames[k]);
    }
}

static void put_header(struct writer *w, const char *trigger, const char *label,
                       double uptime, double interval)
{
    writer_puts(w, MTF_REPORT_MAGIC ", format ");
    writer_dec(w, MTF_REPORT_FORMAT);
    writer_puts(w, "\nprogram ");
    writer_puts(w, modmap_executable_path());
    writer_putc(w, '\n');
    put_key(w, "pid", getpid());
    put_key(w, "sequence", (long)report_seq);
    writer_puts(w, "trigger ");
    writer_puts(w, trigger);
    writer_putc(w, '\n');
    if (label) {
        writer_puts(w, "label ");
        for (const char *p = label; *p; p++) /* one line, whatever it holds */
            writer_putc(w, *p == '\n' ? ' ' : *p);
        writer_putc(w, '\n');
    }
    put_utc_time(w);
    put_seconds(w, "uptime", uptime);
    put_seconds(w, "interval", interval);
    /* Sampling mode: every count and byte figure below is an estimate. */
    if (mt_sample_rate)
        put_key(w, "estimated-from-samples-every", (long)mt_sample_rate);
}

static void put_totals(struct writer *w, const struct gather *g)
{
    put_key(w, "live-bytes", g->live_bytes);
    put_key(w, "live-blocks", g->live_blocks);
    writer_puts(w, "delta-bytes ");
    put_signed(w, g->live_bytes - g->prev_bytes);
    writer_puts(w, "\ndelta-blocks ");
    put_signed(w, g->live_blocks - g->prev_blocks);
    writer_putc(w, '\n');
    put_key(w, "peak-bytes", tracer_peak_bytes(g->live_bytes));
    put_key(w, "allocations", g->allocs);
    put_key(w, "frees", g->frees);
    put_key(w, "interval-allocations", g->allocs - g->prev_allocs);
    put_key(w, "interval-frees", g->frees - g->prev_frees);
    put_key(w, "stacks", (long)g->n);
}

static void put_body(struct writer *w, struct gather *g, double interval)
{
    qsort(g->rows, g->n, sizeof *g->rows, by_delta_then_live);
    size_t listed = g->n < MAX_LISTED_STACKS ? g->n : MAX_LISTED_STACKS;
    writer_puts(w, "\n");
    for (size_t i = 0; i < listed; i++)
        put_stack_row(w, &g->rows[i], interval);
    if (g->n > listed) {
        put_key(w, "stacks-omitted", (long)(g->n - listed));
    }
    size_t total_frames = 0;
    for (size_t i = 0; i < g->n; i++)
        total_frames += g->rows[i].s->depth;
    size_t slots = 64;
    while (slots < 2 * total_frames)
        slots *= 2;
    struct frame_row *table = pages_map(slots * sizeof *table);
    writer_puts(w, "\nby-frame\n");
    if (table) {
        size_t n = frames_by_bytes(g, table, slots);
        for (size_t i = 0; i < n && i < MAX_LISTED_FRAMES; i++) {
            writer_puts(w, "  ");
            writer_dec(w, (uint64_t)table[i].bytes);
            writer_puts(w, " bytes ");
            writer_dec(w, (uint64_t)table[i].blocks);
            writer_puts(w, " blocks ");
            put_frame(w, table[i].f);
        }
        pages_unmap(table, slots * sizeof *table);
    }
    writer_puts(w, "end\n");
}

/* ---- destination -------------------------------------------------------- */

static const char *program_name(void)
{
    const char *exe = modmap_executable_path();
    const char *slash = strrchr(exe, '/');
    return slash ? slash + 1 : exe;
}

/* PATTERN with %p (pid), %n (sequence), %e (program) and %% expanded. */
static int expand_report_name(const char *pattern, char *out, size_t size)
{
    char pid[24], seq[24];
    *fmt_dec(pid, (uint64_t)getpid()) = '\0';
    *fmt_dec(seq, report_seq) = '\0';
    const char *values[] = { pid, seq, program_name(), "%" };
    return fmt_expand(pattern, "pne%", values, out, size);
}

/* The default: "PROGRAM.PID.N.memlog" in the log's directory (the working
 * directory without a log, or when the log is not a regular file).  The
 * name says which process and which report it is, and never starts with
 * the log's own name, so "mtrace-check prog trace.log*" takes no report
 * for a log. */
static int default_report_name(char *out, size_t size)
{
    const char *log = tracelog_path();
    char pattern[4200];
    struct stat st;
    pattern[0] = '\0';
    if (log && strlen(log) < 4000 && stat(log, &st) == 0 &&
        S_ISREG(st.st_mode)) {
        const char *slash = strrchr(log, '/');
        size_t dir = slash ? (size_t)(slash - log) + 1 : 0;
        for (size_t i = 0; i < dir; i++) /* a directory is not a pattern */
            pattern[i] = log[i] == '%' ? '_' : log[i];
        pattern[dir] = '\0';
    }
    strcat(pattern, "%e.%p.%n.memlog");
    return expand_report_name(pattern, out, size);
}

/* Opens where this report goes; *OWNED says whether to close it.  A
 * destination that cannot be written is said once, on stderr. */
static int open_destination(int *owned)
{
    static int warned;
    const char *pattern = mt_config.report;
    char path[4096];
    *owned = 0;
    if (strcmp(pattern, "stderr") == 0)
        return STDERR_FILENO;
    int bad = *pattern ? expand_report_name(pattern, path, sizeof path)
                       : default_report_name(path, sizeof path);
    int fd = bad ? -1
                 : sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 && !warned) {
        warned = 1;
        diag("cannot write the report ", bad ? pattern : path, ": ",
             bad ? "name too long" : strerror(errno),
             "; later reports that fail are not reported", NULL);
    }
    *owned = fd >= 0;
    return fd;
}

/* SCAN is the latest: its definitely lost stacks replace the ones kept. */
static void remember_definite(const struct scan_result *scan)
{
    if (!scan->done)
        return;
    leakreport_free_bits(definite_before, definite_before_bits);
    definite_before = leakreport_definite_bits(scan, &definite_before_bits);
}

int report_write(const char *trigger, const char *label)
{
    mutex_lock(&report_lock, LOCK_RANK_REPORT);
    report_seq++;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double interval = seconds_between(&previous_report, &now);
    double uptime = seconds_between(&clock_zero, &now);
    previous_report = now;

    /* The verdicts first: the scan freezes the live table, and the stack
     * counters below then match what it saw. */
    struct scan_result scan;
    struct leak_report lr;
    scan_run(&scan, trigger);
    leakreport_build(&lr, &scan);
    lr.previous_definite = definite_before;
    lr.previous_bits = definite_before_bits;

    struct gather g = { 0 };
    g.cap = stacktab_count() + 64;
    g.rows = pages_map(g.cap * sizeof *g.rows);
    if (g.rows == NULL)
        g.cap = 0;
    stacktab_each(gather_stack, &g);

    int owned, result = -1;
    int fd = open_destination(&owned);
    if (fd >= 0) {
        struct writer w;
        writer_init(&w, fd, report_buffer, sizeof report_buffer);
        put_header(&w, trigger, label, uptime, interval);
        put_totals(&w, &g);
        leakreport_header(&w, &lr);
        leakreport_body(&w, &lr, put_frame);
        put_body(&w, &g, interval);
        result = writer_flush(&w) ? -1 : 0;
        if (owned)
            sys_close(fd);
    }
    pages_unmap(g.rows, g.cap * sizeof *g.rows);
    leakreport_free(&lr);
    remember_definite(&scan);
    scan_release(&scan);
    mutex_unlock(&report_lock, LOCK_RANK_REPORT);
    /* The log on disk then holds every event the report counted, so it can
     * be checked while the program runs on. */
    tracelog_write_out();
    return result;
}

int report_verdicts(const char *trigger)
{
    struct scan_result scan;
    mutex_lock(&report_lock, LOCK_RANK_REPORT);
    int result = scan_run(&scan, trigger);
    remember_definite(&scan);
    scan_release(&scan);
    mutex_unlock(&report_lock, LOCK_RANK_REPORT);
    return result;
}

int report_verdicts_if(int (*go)(void), const char *trigger)
{
    struct scan_result scan;
    int result = -1;
    mutex_lock(&report_lock, LOCK_RANK_REPORT);
    if (go()) {
        result = scan_run(&scan, trigger);
        remember_definite(&scan);
        scan_release(&scan);
    }
    mutex_unlock(&report_lock, LOCK_RANK_REPORT);
    return result;
}

void report_hold(void)
{
    mutex_lock(&report_lock, LOCK_RANK_REPORT);
}

void report_let_go(void)
{
    mutex_unlock(&report_lock, LOCK_RANK_REPORT);
}

/* ---- the signal trigger --------------------------------------------------- */

/* Reports asked for by the signal, taken (by the reporter thread or by
 * exit), and written.  taken never passes asked, nor done taken. */
static sem_t report_wanted, reporter_ready;
static atomic_uint reports_asked, reports_taken, reports_done;
static int watched_signal;

static void on_report_signal(int sig)
{
    (void)sig;
    int saved = errno;
    /* Ours, whether the trampoline runs it or the kernel does (a handler
     * set before sigtramp's table was: mtraceinit's constructor). */
    sigdefer_count_ours();
    atomic_fetch_add(&reports_asked, 1);
    sem_post(&report_wanted); /* async-signal-safe; the thread does the rest */
    errno = saved;
}

/* Takes one report asked for and not yet taken: 1 when there was one. */
static int take_asked_report(void)
{
    unsigned taken = atomic_load(&reports_taken);
    while (taken != atomic_load(&reports_asked))
        if (atomic_compare_exchange_weak(&reports_taken, &taken, taken + 1))
            return 1;
    return 0;
}

static void write_asked_report(void)
{
    if (tracer_active())
        report_write("signal", NULL);
    atomic_fetch_add(&reports_done, 1);
    syscall(SYS_futex, &reports_done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
            NULL, 0);
}

static void *reporter_thread(void *arg)
{
    (void)arg;
    guard_enter(); /* this thread's own allocations are never traced */
    scan_own_thread_started(); /* nor is its stack a root */
    sem_post(&reporter_ready);
    for (;;) {
        while (sem_wait(&report_wanted) != 0 && errno == EINTR)
            ;
        while (take_asked_report())
            write_asked_report();
    }
    return NULL;
}

void report_write_asked(void)
{
    if (!watched_signal)
        return;
    while (take_asked_report())
        write_asked_report();
    /* The one the reporter thread is writing, if any. */
    for (unsigned done; (done = atomic_load(&reports_done)) !=
                        atomic_load(&reports_taken);)
        syscall(SYS_futex, &reports_done, FUTEX_WAIT_PRIVATE, done, NULL,
                NULL, 0);
}

/* A fork child has no reporter thread: nothing is being written there. */
static void reports_after_fork_child(void)
{
    atomic_store(&reports_done, atomic_load(&reports_taken));
}

void report_watch_signal(int sig,
                         int (*set_action)(int sig, const struct sigaction *act,
                                           struct sigaction *old))
{
    if (sig <= 0 || watched_signal)
        return;
    watched_signal = sig;
    sem_init(&report_wanted, 0, 0);
    /* The thread blocks every signal so the program's are never delivered
     * to it; known as ours before any scan can stop it. */
    if (ownthread_start(reporter_thread, &reporter_ready) != 0)
        return;
    pthread_atfork(NULL, NULL, reports_after_fork_child);
    /* Its deliveries are ours: a blocking call they interrupt resumes
     * (restart.c). */
    sigdefer_set_own_handler(on_report_signal);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_report_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    set_action(sig, &sa, NULL);
}
