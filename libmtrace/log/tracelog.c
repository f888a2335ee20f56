/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tracelog.c - the trace log (see tracelog.h and doc/format.md).
 */
#define _GNU_SOURCE
#include "log/tracelog.h"
#include "../include/mtrace-format.h"
#include "base/arena.h"
#include "base/config.h"
#include "base/debug.h"
#include "base/diag.h"
#include "base/fmt.h"
#include "symbols/frametab.h"
#include "log/logfile.h"
#include "log/loglines.h"
#include "symbols/modmap.h"
#include "base/sampler.h"
#include "base/spin.h"
#include "symbols/stacktab.h"
#include "log/threadlog.h"
#include "log/timestamp.h"
#include "base/valgrind.h"
#include "base/writer.h"
#include "log/zstdlog.h"
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The log's bytes go out in writes of this size: 256 KB writes cost the
 * kernel less per byte than 64 KB ones (write(2) of 32 MB to ext4: 7.3
 * against 8.8 ms), 2-4% of the time of bench/wl's workloads
 * (bench/RESULTS.md, 2026-11-26, fourth session). */
#define LOG_BUFFER_SIZE (1 << 18)

/* What the log is doing. */
enum log_mode {
    LOG_NONE,    /* no file: MALLOC_TRACE unset, closed, or failed */
    LOG_OPEN,    /* writing to w                                   */
    LOG_PENDING, /* a fork child's: opened on its first line       */
};

static struct {
    pthread_mutex_t lock; /* the log lock                      */
    struct writer w;
    _Atomic int mode;  /* enum log_mode (read unlocked: hot) */
    unsigned gen;      /* which log: records are re-emitted per log */
    pid_t forked_from; /* in a fork child: the parent's pid       */
    char path[4096];
    /* From tracelog_start: the layers above, known by these only. */
    const char *(*unwinder)(void); /* its name, for the header     */
    void (*on_write_failure)(void); /* stops collecting           */
} log_state = { .lock = PTHREAD_MUTEX_INITIALIZER, .w = { .fd = -1 } };

static char log_buffer[LOG_BUFFER_SIZE];

/* The thread whose exec is under way (0: none).  An exec kills the other
 * threads, and the kernel ends a write(2) of a thread being killed at a
 * page boundary: a line torn in two at the log's end (seen under load in
 * the exec-threads test, 1 run in 200).  So from "#e exec" until the exec
 * fails, other threads of ours do not write: they wait for the log lock
 * here, where an exec that succeeds ends them whole.  The wait is bounded
 * (EXEC_WAIT_MS): a thread that waits may hold its buffer's lock, and
 * should the exec'ing thread need that lock first (a signal handler that
 * frees one of its blocks before the exec), a bounded wait costs a stall,
 * never a hang. */
#define EXEC_WAIT_MS 2000
#define EXEC_WAIT_STEP_MS 50
static _Atomic pid_t exec_tid;

static void wait_for_exec(pid_t tid)
{
    struct timespec step = { 0, EXEC_WAIT_STEP_MS * 1000000L };
    syscall(SYS_futex, &exec_tid, FUTEX_WAIT_PRIVATE, tid, &step, NULL, 0);
}

static void lock_log(void)
{
    for (int waited = 0;; waited += EXEC_WAIT_STEP_MS) {
        mutex_lock(&log_state.lock, LOCK_RANK_LOG);
        pid_t tid = atomic_load(&exec_tid);
        if (tid == 0 || waited >= EXEC_WAIT_MS || tid == gettid())
            return;
        mutex_unlock(&log_state.lock, LOCK_RANK_LOG);
        wait_for_exec(tid);
    }
}

/* The log lock if it is free and no other thread's exec is under way. */
static int trylock_log(void)
{
    if (!mutex_trylock(&log_state.lock, LOCK_RANK_LOG))
        return 0;
    pid_t tid = atomic_load(&exec_tid);
    if (tid == 0 || tid == gettid())
        return 1;
    mutex_unlock(&log_state.lock, LOCK_RANK_LOG);
    return 0;
}

static void unlock_log(void)
{
    mutex_unlock(&log_state.lock, LOCK_RANK_LOG);
}

static int mode(void)
{
    return atomic_load_explicit(&log_state.mode, memory_order_relaxed);
}

int tracelog_logging(void)
{
    return mode() != LOG_NONE;
}

const char *tracelog_path(void)
{
    return mode() == LOG_OPEN ? log_state.path : NULL;
}

uint32_t tracelog_line_tag(void)
{
    return tracelog_logging() ? threadlog_tag() : 0;
}

/* ---- opening and closing (log lock held, or single-threaded) ------------ */


/* MALLOC_TRACE made absolute when collection starts: a fork child opens
 * its log (on its first line) beside its parent's, wherever it is then. */
static char trace_pattern[4096];

static void remember_pattern(void)
{
    const char *p = mt_trace_path;
    size_t dir = 0;
    trace_pattern[0] = '\0';
    if (p == NULL || *p == '\0')
        return;
    if (p[0] != '/' && getcwd(trace_pattern, sizeof trace_pattern - 1)) {
        dir = strlen(trace_pattern);
        trace_pattern[dir++] = '/';
    }
    if (dir + strlen(p) < sizeof trace_pattern)
        strcpy(trace_pattern + dir, p);
    else
        strcpy(trace_pattern, p); /* logfile_open says it is too long */
}

/* A compressed log (zstdlog.h); without libzstd's memory, a plain one. */
static void compress_log(void)
{
    int err = zstdlog_attach(&log_state.w);
    if (err)
        diag("cannot compress the trace log ", log_state.path, " (",
             strerror(err), "): it is written as plain text", NULL);
}

/* Opens the log named by MALLOC_TRACE (a fork child's own name when
 * log_state.forked_from is set). */
static void open_log(void)
{
    const char *pattern = trace_pattern;
    atomic_store(&log_state.mode, LOG_NONE);
    if (pattern == NULL || *pattern == '\0')
        return;
    int fd = logfile_open(pattern, getpid(), log_state.forked_from != 0,
                          log_state.path, sizeof log_state.path);
    if (fd < 0) {
        diag("cannot open the trace log ", pattern, ", no log is written: ",
             errno == ENXIO ? "a FIFO without a reader" : strerror(errno),
             NULL);
        return;
    }
    writer_init(&log_state.w, fd, log_buffer, sizeof log_buffer);
    writer_guard_descriptor(&log_state.w, log_state.path);
    log_state.gen++;
    atomic_store(&log_state.mode, LOG_OPEN);
    loglines_header(&log_state.w, log_state.unwinder(), log_state.forked_from);
    if (zstdlog_wanted(pattern))
        compress_log();
}

/* Whether lines can be written now, opening a fork child's log on its
 * first line. */
static int log_ready(void)
{
    MT_ASSERT_HELD(LOCK_RANK_LOG);
    if (mode() == LOG_PENDING)
        open_log();
    return mode() == LOG_OPEN;
}

static void close_log(void)
{
    if (mode() != LOG_OPEN)
        return;
    writer_flush(&log_state.w);
    writer_close(&log_state.w);
    atomic_store(&log_state.mode, LOG_NONE);
}

/* A write failed (full disk, closed descriptor...): one warning, then
 * tracing stops; the program goes on untouched. */
static void stop_on_write_failure(void)
{
    MT_ASSERT_HELD(LOCK_RANK_LOG);
    if (!log_state.w.failed || mode() != LOG_OPEN)
        return;
    diag("writing the trace log ", log_state.path,
         " failed, tracing stopped: ", strerror(log_state.w.failed), NULL);
    writer_close(&log_state.w);
    atomic_store(&log_state.mode, LOG_NONE);
    log_state.on_write_failure();
}

/* ---- records (log lock held) -------------------------------------------- */

static void emit_module(struct writer *w, struct module *m)
{
    if (m == NULL || m->emitted_gen == log_state.gen)
        return;
    m->emitted_gen = log_state.gen;
    writer_puts(w, MTF_REC_MODULE " ");
    writer_dec(w, (uint64_t)m->id);
    writer_puts(w, " ");
    writer_ptr(w, m->bias);
    writer_putc(w, ' ');
    writer_puts(w, m->build_id[0] ? m->build_id : "-");
    writer_putc(w, ' ');
    writer_puts(w, m->path);
    writer_putc(w, '\n');
    if (atomic_load(&m->unloaded)) {
        m->unload_emitted_gen = log_state.gen;
        writer_puts(w, MTF_REC_UNLOAD " ");
        writer_dec(w, (uint64_t)m->id);
        writer_putc(w, '\n');
    }
}

/* "MID:0xOFF" in a stack record, "MID 0xOFF" in a symbol record. */
static void emit_frame_ref(struct writer *w, const struct frame *f, char sep)
{
    if (f->mod)
        writer_dec(w, (uint64_t)f->mod->id);
    else
        writer_puts(w, MTF_NO_MODULE);
    writer_putc(w, sep);
    writer_ptr(w, f->offset);
}

static void emit_symbol(struct writer *w, struct frame *f)
{
    if (f->symbol == NULL || f->emitted_gen == log_state.gen)
        return;
    f->emitted_gen = log_state.gen;
    writer_puts(w, MTF_REC_SYMBOL " ");
    emit_frame_ref(w, f, ' ');
    writer_putc(w, ' ');
    writer_ptr(w, f->symbol_offset);
    writer_putc(w, ' ');
    writer_puts(w, f->symbol);
    writer_putc(w, '\n');
}


/* S's line parts (stacktab.h), once: every line of S is then two copies
 * and two numbers. */
static void make_line_parts(struct stack *s)
{
    if (atomic_load_explicit(&s->line_parts, memory_order_relaxed))
        return;
    struct frame *f = s->depth ? s->frames[0] : NULL;
    if (f && f->where && f->where_len <= EVENT_LINE_MAX - EVENT_FIELDS_MAX) {
        size_t n = f->where_len + 3;
        if (f->head == NULL) { /* one per frame: the stacks share it */
            char *head = arena_alloc((n + 15) & ~(size_t)15);
            if (head == NULL)
                return;
            head[0] = '@';
            head[1] = ' ';
            memcpy(head + 2, f->where, f->where_len);
            head[n - 1] = ' ';
            f->head = head;
        }
        s->head = f->head;
        s->head_len = (unsigned)n;
    }
    char *p = s->tail;
    *p++ = ' ';
    *p++ = MTF_STACK_FIELD_PREFIX;
    p = fmt_dec(p, stack_id(s));
    *p++ = '\n';
    s->tail_len = (unsigned)(p - s->tail);
    atomic_store_explicit(&s->line_parts, 1, memory_order_release);
}

/* The longest "#s" record of DEPTH frames: " MID:0xOFF" is at most 1 +
 * 10 + 1 + 18 bytes, and fmt_hex16 stores 16 bytes wherever it stops. */
static size_t stack_record_max(unsigned depth)
{
    return sizeof MTF_REC_STACK + 12 + (size_t)depth * 30 + 16;
}

/* "#s SID MID:0xOFF..." and its newline formatted in place into P (room for
 * stack_record_max): one call into the writer instead of three a frame,
 * every one of the 28,418 stacks cc1plus leaves live at exit taking ~330
 * bytes in ~65 pieces. */
static size_t format_stack_record(char *p, const struct stack *s)
{
    char *start = p;
    memcpy(p, MTF_REC_STACK " ", sizeof MTF_REC_STACK);
    p = fmt_dec(p + sizeof MTF_REC_STACK, stack_id(s));
    for (unsigned i = 0; i < s->depth; i++) {
        const struct frame *f = s->frames[i];
        *p++ = ' ';
        if (f->mod)
            p = fmt_dec(p, (uint64_t)f->mod->id);
        else
            p = stpcpy(p, MTF_NO_MODULE);
        p[0] = ':';
        p[1] = '0';
        p[2] = 'x';
        p = fmt_hex16(p + 3, f->offset);
    }
    *p++ = '\n';
    return (size_t)(p - start);
}

static void emit_stack(struct writer *w, struct stack *s)
{
    MT_ASSERT_HELD(LOCK_RANK_LOG);
    if (s->emitted_gen == log_state.gen)
        return;
    s->emitted_gen = log_state.gen;
    /* Frames are scattered, and each one read is a cache miss (cc1plus's
     * exit reads 600k for its 28k stacks, bench/RESULTS.md): asked for all
     * at once, they arrive together instead of one after the other. */
    for (unsigned i = 0; i < s->depth; i++)
        __builtin_prefetch(s->frames[i]);
    make_line_parts(s);
    for (unsigned i = 0; i < s->depth; i++) {
        struct frame *f = s->frames[i];
        /* Most frames were written with an earlier stack: no call. */
        if (f->mod && f->mod->emitted_gen != log_state.gen)
            emit_module(w, f->mod);
        if (f->symbol && f->emitted_gen != log_state.gen)
            emit_symbol(w, f);
    }
    char *room = writer_room(w, stack_record_max(s->depth));
    if (room) {
        writer_commit(w, format_stack_record(room, s));
        return;
    }
    writer_puts(w, MTF_REC_STACK " ");
    writer_dec(w, stack_id(s));
    for (unsigned i = 0; i < s->depth; i++) {
        writer_putc(w, ' ');
        emit_frame_ref(w, s->frames[i], ':');
    }
    writer_putc(w, '\n');
}

/* ---- event lines -------------------------------------------------------- */

/* An event line whose WHERE does not fit EVENT_LINE_MAX: "@ WHERE "
 * straight into the log, then the fields.  Log lock held. */
static void emit_long_event(struct writer *w, char op, const void *ptr,
                            size_t size, int with_size, const struct stack *s,
                            const struct frame *where)
{
    char line[EVENT_LINE_MAX];
    writer_put(w, "@ ", 2);
    writer_put(w, where->where, where->where_len);
    writer_putc(w, ' ');
    writer_put(w, line, loglines_event(line, op, ptr, size, with_size, s, NULL));
}

/* A "#t" record alone (threadlog.c stamps hand-overs): no line of the
 * process's, so it never opens a fork child's pending log. */
static int only_time(const char *lines, size_t n)
{
    size_t k = sizeof MTF_REC_TIME - 1;
    return n > k && memcmp(lines, MTF_REC_TIME " ", k + 1) == 0 &&
           memchr(lines, '\n', n) == lines + n - 1;
}

/* Where the threads' buffers go: the shared log. */
static int log_sink(const char *lines, size_t n, int wait)
{
    if (wait)
        lock_log();
    else if (!trylock_log())
        return 0;
    if ((mode() == LOG_OPEN || !only_time(lines, n)) && log_ready()) {
        writer_put(&log_state.w, lines, n);
        stop_on_write_failure();
    }
    unlock_log();
    return 1;
}

/* The stack record (and the records it needs) goes to the shared log
 * before the first line that uses it enters any thread's buffer. */
static void publish_stack(struct stack *s)
{
    if (mt_config.classic || s == NULL || s->emitted_gen == log_state.gen)
        return;
    lock_log();
    if (log_ready()) {
        emit_stack(&log_state.w, s);
        stop_on_write_failure();
    }
    unlock_log();
}

void tracelog_event(char op, const void *ptr, size_t size, int with_size,
                    struct stack *s, const struct frame *where, uint32_t tag)
{
    if (!tracelog_logging())
        return;
    zstdlog_poll(); /* no lock of ours is held here */
    publish_stack(s);
    char *room = threadlog_reserve(), line[EVENT_LINE_MAX];
    size_t n = loglines_event(room ? room : line, op, ptr, size, with_size, s,
                            where);
    if (room)
        threadlog_commit(n, tag);
    else if (n)
        threadlog_append(line, n, tag);
    if (n)
        return;
    /* Too long for a buffer: this thread's earlier lines first. */
    threadlog_flush_mine();
    lock_log();
    if (log_ready()) {
        emit_long_event(&log_state.w, op, ptr, size, with_size, s, where);
        stop_on_write_failure();
    }
    unlock_log();
}

void tracelog_record_line(const char *line, size_t n, struct stack *s,
                          uint32_t tag)
{
    if (!tracelog_logging() || mt_config.classic)
        return;
    zstdlog_poll();
    publish_stack(s);
    threadlog_append(line, n, tag);
}

/* A record that refers to S (a resource's, track/resource.c) straight
 * into the shared log, after the stack record: records of one kind and id
 * then stand in the order their events took the log lock. */
void tracelog_record(struct stack *s, const char *line, size_t n)
{
    if (!tracelog_logging() || mt_config.classic)
        return;
    zstdlog_poll(); /* no lock of ours is held here */
    publish_stack(s);
    lock_log();
    if (log_ready()) {
        writer_put(&log_state.w, line, n);
        stop_on_write_failure();
    }
    unlock_log();
}

/* ---- the log's life ----------------------------------------------------- */

void tracelog_start(const char *(*unwinder)(void),
                    void (*on_write_failure)(void))
{
    log_state.unwinder = unwinder;
    log_state.on_write_failure = on_write_failure;
    remember_pattern();
    threadlog_set_sink(log_sink);
    lock_log();
    open_log();
    unlock_log();
}

void tracelog_unloaded(void)
{
    lock_log();
    for (int i = 0; i < modmap_count() && mode() == LOG_OPEN; i++) {
        struct module *m = modmap_get(i);
        if (atomic_load(&m->unloaded) && m->emitted_gen == log_state.gen &&
            m->unload_emitted_gen != log_state.gen) {
            m->unload_emitted_gen = log_state.gen;
            writer_puts(&log_state.w, MTF_REC_UNLOAD " ");
            writer_dec(&log_state.w, (uint64_t)m->id);
            writer_putc(&log_state.w, '\n');
        }
    }
    stop_on_write_failure();
    unlock_log();
}

void tracelog_note(const char *a, const char *b, const char *c)
{
    if (mt_config.classic)
        return;
    lock_log();
    if (log_ready()) {
        writer_puts(&log_state.w, MTF_REC_COMMENT);
        writer_puts(&log_state.w, a);
        writer_puts(&log_state.w, b);
        writer_puts(&log_state.w, c);
        writer_putc(&log_state.w, '\n');
        stop_on_write_failure();
    }
    unlock_log();
}

void tracelog_write_out(void)
{
    /* The caller entered the recursion guard, so this thread is not inside
     * the tracer and holds none of its locks: waiting for other threads to
     * let go of them is safe. */
    threadlog_flush_all();
    lock_log();
    if (mode() == LOG_OPEN)
        writer_flush(&log_state.w);
    stop_on_write_failure();
    unlock_log();
}

/* "#e REASON[ KEY=VALUE]" (log lock held, log open). */
static void emit_end(const char *reason, const char *key, long value)
{
    if (mt_config.classic)
        return;
    writer_puts(&log_state.w, MTF_REC_END " ");
    writer_puts(&log_state.w, reason);
    if (key) {
        writer_putc(&log_state.w, ' ');
        writer_puts(&log_state.w, key);
        writer_putc(&log_state.w, '=');
        writer_dec(&log_state.w, (uint64_t)value);
    }
    writer_putc(&log_state.w, '\n');
}

void tracelog_end(const char *reason, int end_mark, int close)
{
    threadlog_flush_all();
    lock_log();
    /* A fork child whose log is still pending wrote nothing: no file. */
    if (mode() == LOG_OPEN) {
        emit_end(reason, NULL, 0);
        if (end_mark)
            writer_puts(&log_state.w, MTF_END "\n");
        writer_flush(&log_state.w);
        stop_on_write_failure();
        /* The image may be gone before other threads' lines go out: a
         * compressed log keeps no frame open meanwhile. */
        if (strcmp(reason, MTF_END_EXEC) == 0) {
            zstdlog_exec_begin();
            /* Not in a vfork() child: it shares our memory, and the
             * parent's threads would wait for good. */
            if (getpid() == log_state.w.owner)
                atomic_store(&exec_tid, gettid());
        }
    }
    if (close) {
        close_log();
        atomic_store(&log_state.mode, LOG_NONE);
    }
    unlock_log();
}

/* At exit: write out what is buffered, then write every later line (frees
 * from destructors that run after us) as it comes. */
void tracelog_exit(void)
{
    threadlog_set_direct();
    lock_log();
    if (mode() == LOG_OPEN) {
        emit_end(MTF_END_EXIT, NULL, 0);
        writer_flush(&log_state.w);
        log_state.w.unbuffered = 1;
        stop_on_write_failure();
    }
    unlock_log();
}

void tracelog_exec_failed(void)
{
    lock_log();
    zstdlog_exec_failed();
    unlock_log();
}

void tracelog_exec_over(void)
{
    if (atomic_load(&exec_tid) != gettid())
        return;
    atomic_store(&exec_tid, 0);
    syscall(SYS_futex, &exec_tid, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

void tracelog_end_by_signal(int sig, int inside)
{
    if (inside) {
        /* This thread may hold its buffer's lock or the log's: take
         * nothing that could be ours, write what can be written. */
        threadlog_flush_all_nowait();
        if (!mutex_trylock(&log_state.lock, LOCK_RANK_LOG))
            return;
    } else {
        threadlog_flush_all();
        lock_log();
    }
    if (mode() == LOG_OPEN) {
        emit_end(MTF_END_SIGNAL, "sig", sig);
        if (inside)
            writer_flush_nowait(&log_state.w);
        else
            writer_flush(&log_state.w);
    }
    unlock_log();
}

/* ---- fork ---------------------------------------------------------------- */

void tracelog_fork_prepare(void)
{
    lock_log();
    if (mode() == LOG_OPEN) {
        writer_flush(&log_state.w);
        stop_on_write_failure();
    }
    log_state.forked_from = getpid();
}

void tracelog_fork_lock_queue(void)
{
    zstdlog_fork_prepare();
}

void tracelog_fork_unlock_queue(void)
{
    zstdlog_fork_parent();
}

void tracelog_fork_parent(void)
{
    log_state.forked_from = 0;
    unlock_log();
}

void tracelog_fork_child(void)
{
    /* Only this thread survives and it holds the log lock. */
    pthread_mutex_init(&log_state.lock, NULL);
    LOCK_RANK_DROP(LOCK_RANK_LOG);
    zstdlog_fork_child();
    if (mode() == LOG_NONE)
        return;
    /* The parent owns the descriptor's lock and the buffered bytes. */
    writer_discard(&log_state.w);
    writer_close(&log_state.w);
    atomic_store(&log_state.mode, LOG_PENDING);
}

/* ---- the reachability scan's records (scan.c) -------------------------- */

void tracelog_scan_lock(void)
{
    threadlog_lock_all(); /* a buffer's lock, then the log's */
    lock_log();
}

static void put_lines(const char *lines, size_t n)
{
    if (log_ready())
        writer_put(&log_state.w, lines, n);
}

void tracelog_scan_flush(void)
{
    threadlog_drain_locked(put_lines);
}

int tracelog_scan_records(void)
{
    MT_ASSERT_HELD(LOCK_RANK_LOG);
    return mode() == LOG_OPEN && !mt_config.classic;
}

void tracelog_scan_put(const char *line, size_t n)
{
    if (tracelog_scan_records())
        writer_put(&log_state.w, line, n);
}

void tracelog_scan_module(int mid)
{
    if (tracelog_scan_records())
        emit_module(&log_state.w, modmap_get(mid));
}

void tracelog_scan_unlock(void)
{
    stop_on_write_failure();
    unlock_log();
    threadlog_unlock_all();
}

/* ---- lines straight into the log (livelog.c) ----------------------------- */

void tracelog_direct_lock(void)
{
    lock_log();
}

void tracelog_direct_unlock(void)
{
    stop_on_write_failure();
    unlock_log();
}

void tracelog_write_event(struct writer *w, char op, const void *ptr,
                          size_t size, int with_size, const struct stack *s,
                          const struct frame *where)
{
    char line[EVENT_LINE_MAX], *room = writer_room(w, EVENT_LINE_MAX);
    size_t n = loglines_event(room ? room : line, op, ptr, size, with_size, s,
                              where);
    if (n && room)
        writer_commit(w, n);
    else if (n)
        writer_put(w, line, n);
    else
        emit_long_event(w, op, ptr, size, with_size, s, where);
}

struct writer *tracelog_locked_writer(struct stack *s)
{
    MT_ASSERT_HELD(LOCK_RANK_LOG);
    if (mt_config.classic || !log_ready())
        return NULL;
    if (s)
        emit_stack(&log_state.w, s);
    return &log_state.w;
}
