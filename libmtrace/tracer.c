/* tracer.c - the tracker core (see tracer.h): events, the log and its
 * records, and the log's life across start, stop, fork and exit.
 *
 * Event lines go to per-thread buffers (threadlog.h), which are handed to
 * the shared log when full; records (#m, #f, #s) go to the shared log
 * directly, before the first line that refers to them is appended.  One
 * log lock guards the shared log.  Everything that may take the loader's
 * lock (unwinding, dladdr, dl_iterate_phdr, first sight of a frame)
 * happens before it is taken; under it we only format and write.
 * A free is logged before the real free() and a realloc's "<" before the
 * real realloc(), and the live table carries the tags that let threadlog
 * keep a free after its allocation and an allocation after the free of
 * the same address: the log is causally ordered across threads.
 * GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "tracer.h"
#include "../include/mtrace-format.h"
#include "arena.h"
#include "config.h"
#include "counters.h"
#include "fmt.h"
#include "forkgate.h"
#include "frametab.h"
#include "guard.h"
#include "livetab.h"
#include "logfile.h"
#include "modmap.h"
#include "spin.h"
#include "stacktab.h"
#include "threadlog.h"
#include "threads.h"
#include "unwind.h"
#include "writer.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define LOG_BUFFER_SIZE (1 << 16)

atomic_int mt_collecting;

static struct {
    /* The log lock: held to copy in a thread's buffer or a record (and
     * for a write(2) when the shared buffer is full). */
    pthread_mutex_t lock;
    struct writer w;
    int logging;  /* a log file is open                      */
    unsigned gen; /* which log: records are re-emitted per log */
    char path[4096];
    int started;
} log_state = { .lock = PTHREAD_MUTEX_INITIALIZER, .w = { .fd = -1 } };

static char log_buffer[LOG_BUFFER_SIZE];

int tracer_started(void)
{
    return log_state.started;
}

const char *tracer_log_path(void)
{
    return log_state.logging ? log_state.path : NULL;
}

/* ---- stacks ---------------------------------------------------------- */

static struct stack *current_stack(const void *caller)
{
    void *frames[MTF_MAX_DEPTH];
    if (mt_config.classic) {
        frames[0] = (void *)caller; /* glibc's lines need the caller only */
        return stacktab_intern(frames, 1);
    }
    /* A replayed walk brings back the stack found for it last time. */
    void **memo;
    int n = unwind_stack_memo(frames, mt_config.depth, caller, &memo);
    if (memo && *memo)
        return *memo;
    if (n == UNWIND_KNOWN) { /* never without the word: be safe */
        frames[0] = (void *)caller;
        n = 1;
    }
    struct stack *s = stacktab_intern(frames, n);
    if (memo)
        *memo = s;
    return s;
}

/* Peak live bytes: each thread adds its changes to the global count in
 * batches, so threads do not fight over one cache line on every event;
 * the peak is exact to within PEAK_BATCH bytes per thread. */
#define PEAK_BATCH (64 * 1024)
static __thread long unbatched_bytes __attribute__((tls_model("initial-exec")));
static atomic_long batched_live_bytes, peak_live_bytes;

static void raise_peak(long live)
{
    long peak = atomic_load_explicit(&peak_live_bytes, memory_order_relaxed);
    while (live > peak &&
           !atomic_compare_exchange_weak(&peak_live_bytes, &peak, live))
        ;
}

static void account_bytes(long delta)
{
    unbatched_bytes += delta;
    if (unbatched_bytes > PEAK_BATCH || unbatched_bytes < -PEAK_BATCH) {
        long live = atomic_fetch_add(&batched_live_bytes, unbatched_bytes) +
                    unbatched_bytes;
        unbatched_bytes = 0;
        raise_peak(live);
    }
}

long tracer_peak_bytes(long live_now)
{
    raise_peak(live_now);
    return atomic_load(&peak_live_bytes);
}

static void count_alloc(uint32_t id, size_t size)
{
    account_bytes((long)size);
    counters_add_alloc(id, (long)size);
}

static void count_free(uint32_t id, size_t size)
{
    account_bytes(-(long)size);
    counters_add_free(id, (long)size);
}

/* ---- records (log lock held) ------------------------------------------ */

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

static void emit_stack(struct writer *w, struct stack *s)
{
    if (s->emitted_gen == log_state.gen)
        return;
    s->emitted_gen = log_state.gen;
    for (unsigned i = 0; i < s->depth; i++) {
        emit_module(w, s->frames[i]->mod);
        emit_symbol(w, s->frames[i]);
    }
    writer_puts(w, MTF_REC_STACK " ");
    writer_dec(w, stack_id(s));
    for (unsigned i = 0; i < s->depth; i++) {
        writer_putc(w, ' ');
        emit_frame_ref(w, s->frames[i], ':');
    }
    writer_putc(w, '\n');
}

/* Room for an event line with a usual WHERE; longer ones are written in
 * pieces (emit_long_event). */
#define EVENT_LINE_MAX THREADLOG_LINE_MAX
#define EVENT_FIELDS_MAX 96 /* op, pointer, size, stack id */

/* Formats "@ WHERE OP PTR[ SIZE][ sID]\n" into LINE (EVENT_LINE_MAX bytes)
 * and returns its length, or 0 when WHERE is too long for it.  Done before
 * the log lock is taken, to keep the lock's hold short. */
static size_t format_event(char *line, char op, const void *ptr, size_t size,
                           int with_size, const struct stack *s,
                           const struct frame *where)
{
    char *p = line;
    if (where && where->where) {
        if (where->where_len > EVENT_LINE_MAX - EVENT_FIELDS_MAX)
            return 0;
        *p++ = '@';
        *p++ = ' ';
        memcpy(p, where->where, where->where_len);
        p += where->where_len;
        *p++ = ' ';
    }
    *p++ = op;
    *p++ = ' ';
    p = fmt_ptr(p, (uintptr_t)ptr);
    if (with_size) {
        *p++ = ' ';
        p = fmt_size(p, size);
    }
    if (!mt_config.classic && s) {
        *p++ = ' ';
        *p++ = MTF_STACK_FIELD_PREFIX;
        p = fmt_dec(p, stack_id(s));
    }
    *p++ = '\n';
    return (size_t)(p - line);
}

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
    writer_put(w, line, format_event(line, op, ptr, size, with_size, s, NULL));
}

/* Writes an event line, after the stack record it refers to, straight
 * into the shared log.  Log lock held (or single-threaded: fork child). */
static void emit_event(struct writer *w, char op, const void *ptr, size_t size,
                       int with_size, struct stack *s,
                       const struct frame *where)
{
    char line[EVENT_LINE_MAX];
    size_t n = format_event(line, op, ptr, size, with_size, s, where);
    if (!mt_config.classic && s)
        emit_stack(w, s);
    if (n)
        writer_put(w, line, n);
    else
        emit_long_event(w, op, ptr, size, with_size, s, where);
}

/* ---- failure ----------------------------------------------------------- */

/* One warning line on stderr: "libmtrace: A B C D". */
static void say(const char *a, const char *b, const char *c, const char *d)
{
    const char *parts[] = { "libmtrace: ", a, b, c, d, "\n" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i])
            write_all(STDERR_FILENO, parts[i], strlen(parts[i]));
}

/* A write failed (full disk, closed descriptor...): one warning, then
 * tracing stops; the program goes on untouched.  Log lock held. */
static void stop_on_write_failure(void)
{
    if (!log_state.w.failed || !log_state.logging)
        return;
    say("writing the trace log ", log_state.path,
        " failed, tracing stopped: ", strerror(log_state.w.failed));
    writer_close(&log_state.w);
    log_state.logging = 0;
    atomic_store(&mt_collecting, 0);
}

/* Where the threads' buffers go: the shared log. */
static int log_sink(const char *lines, size_t n, int wait)
{
    if (!wait && pthread_mutex_trylock(&log_state.lock) != 0)
        return 0;
    if (wait)
        pthread_mutex_lock(&log_state.lock);
    if (log_state.logging) {
        writer_put(&log_state.w, lines, n);
        stop_on_write_failure();
    }
    pthread_mutex_unlock(&log_state.lock);
    return 1;
}

/* The stack record (and the records it needs) goes to the shared log
 * before the first line that uses it enters any thread's buffer. */
static void publish_stack(struct stack *s)
{
    if (mt_config.classic || s == NULL || s->emitted_gen == log_state.gen)
        return;
    pthread_mutex_lock(&log_state.lock);
    if (log_state.logging) {
        emit_stack(&log_state.w, s);
        stop_on_write_failure();
    }
    pthread_mutex_unlock(&log_state.lock);
}

/* An event line, into this thread's buffer.  TAG: see threadlog_append. */
static void log_event(char op, const void *ptr, size_t size, int with_size,
                      struct stack *s, const struct frame *where, uint32_t tag)
{
    if (!log_state.logging)
        return;
    publish_stack(s);
    char *room = threadlog_reserve(), line[EVENT_LINE_MAX];
    size_t n = format_event(room ? room : line, op, ptr, size, with_size, s,
                            where);
    if (room)
        threadlog_commit(n, tag);
    else if (n)
        threadlog_append(line, n, tag);
    if (n)
        return;
    /* Too long for a buffer: this thread's earlier lines first. */
    threadlog_flush_mine();
    pthread_mutex_lock(&log_state.lock);
    if (log_state.logging) {
        emit_long_event(&log_state.w, op, ptr, size, with_size, s, where);
        stop_on_write_failure();
    }
    pthread_mutex_unlock(&log_state.lock);
}

/* The tag this thread's next line will carry, or 0 when no log is
 * written (then the live table keeps nothing for ordering). */
static uint32_t line_tag(void)
{
    return log_state.logging ? threadlog_tag() : 0;
}

/* ---- events ------------------------------------------------------------ */

/* Each event runs inside the fork gate (forkgate.h): unwinding and the
 * first sight of a frame may enter the loader. */

static void on_alloc(void *ptr, size_t size, const void *caller)
{
    livetab_prefetch((uintptr_t)ptr); /* overlaps with the unwinding */
    livetab_prefetch_next((uintptr_t)ptr);
    struct stack *s = current_stack(caller);
    if (s == NULL)
        return;
    uint32_t tag = line_tag();
    /* Another thread's free of this address must be out before our "+". */
    threadlog_settle(
        livetab_insert_tagged((uintptr_t)ptr, size, stack_id(s), tag));
    count_alloc(stack_id(s), size);
    log_event(MTF_OP_ALLOC, ptr, size, 1, s, s->frames[0], tag);
}

void tracer_on_alloc(void *ptr, size_t size, const void *caller)
{
    gate_enter();
    on_alloc(ptr, size, caller);
    gate_leave();
}

/* Logs the release of a block found in the live table (a free or a
 * realloc's "<"), after its allocation line, which may be another
 * thread's.  A release the table could not remember is written out at
 * once, before the memory can be reused. */
static void log_release(char op, void *ptr, uint32_t id, size_t size,
                        const void *caller, int found, uint32_t alloc_tag,
                        uint32_t tag)
{
    threadlog_settle(alloc_tag);
    count_free(id, size);
    log_event(op, ptr, 0, 0, stacktab_by_id(id),
              frametab_get((uintptr_t)caller), tag);
    if (found == LIVE_FOUND_UNMARKED)
        threadlog_flush_mine();
}

void tracer_on_free(void *ptr, const void *caller)
{
    livetab_prefetch_next((uintptr_t)ptr);
    size_t size;
    uint32_t id, alloc_tag, tag = line_tag();
    int found = livetab_remove_tagged((uintptr_t)ptr, &size, &id, &alloc_tag,
                                      tag);
    if (found == LIVE_ABSENT)
        return; /* not allocated while tracing: nothing to pair it with */
    gate_enter();
    log_release(MTF_OP_FREE, ptr, id, size, caller, found, alloc_tag, tag);
    gate_leave();
}

void tracer_realloc_begin(void *old, const void *caller,
                          struct realloc_ticket *t)
{
    uint32_t alloc_tag, tag = line_tag();
    int found = livetab_remove_tagged((uintptr_t)old, &t->old_size,
                                      &t->old_stack, &alloc_tag, tag);
    t->tracked = found != LIVE_ABSENT;
    if (!t->tracked)
        return;
    gate_enter();
    log_release(MTF_OP_RE_OLD, old, t->old_stack, t->old_size, caller, found,
                alloc_tag, tag);
    gate_leave();
}

/* The real realloc failed: the old block is still the program's.  "!" as
 * glibc writes it, then "+" to give the block back to every reader. */
static void realloc_failed(void *old, size_t size, const void *caller,
                           const struct realloc_ticket *t)
{
    struct stack *old_stack = stacktab_by_id(t->old_stack);
    struct stack *s = current_stack(caller);
    uint32_t tag = line_tag();
    /* What the table remembers of the "<" is this thread's own line. */
    livetab_insert_tagged((uintptr_t)old, t->old_size, t->old_stack, tag);
    account_bytes((long)t->old_size);
    counters_undo_free(t->old_stack, (long)t->old_size);
    if (s)
        log_event(MTF_OP_RE_FAIL, old, size, 1, s, s->frames[0], tag);
    if (old_stack)
        log_event(MTF_OP_ALLOC, old, t->old_size, 1, old_stack,
                  old_stack->frames[0], tag);
}

static void realloc_end(void *old, void *new_ptr, size_t size,
                        const void *caller, const struct realloc_ticket *t)
{
    if (new_ptr == NULL) {
        if (t->tracked)
            realloc_failed(old, size, caller, t);
        return;
    }
    struct stack *s = current_stack(caller);
    if (s == NULL)
        return;
    uint32_t tag = line_tag();
    threadlog_settle(
        livetab_insert_tagged((uintptr_t)new_ptr, size, stack_id(s), tag));
    count_alloc(stack_id(s), size);
    /* A block not allocated while tracing becomes a new allocation. */
    char op = t->tracked ? MTF_OP_RE_NEW : MTF_OP_ALLOC;
    log_event(op, new_ptr, size, 1, s, s->frames[0], tag);
}

void tracer_realloc_end(void *old, void *new_ptr, size_t size,
                        const void *caller, const struct realloc_ticket *t)
{
    gate_enter();
    realloc_end(old, new_ptr, size, caller, t);
    gate_leave();
}

/* ---- the log's life ---------------------------------------------------- */

static void write_header(struct writer *w, pid_t forked_from)
{
    writer_puts(w, MTF_START "\n");
    if (mt_config.classic)
        return;
    writer_puts(w, MTF_REC_VERSION " ");
    writer_dec(w, MTF_VERSION);
    writer_puts(w, " pid=");
    writer_dec(w, (uint64_t)getpid());
    writer_puts(w, " proc=");
    writer_puts(w, logfile_process_tag());
    writer_puts(w, " ppid=");
    writer_dec(w, (uint64_t)getppid());
    writer_puts(w, " depth=");
    writer_dec(w, (uint64_t)mt_config.depth);
    writer_puts(w, " unwinder=");
    writer_puts(w, unwind_name());
    if (forked_from) {
        writer_puts(w, " forked-from=");
        writer_dec(w, (uint64_t)forked_from);
    }
    writer_putc(w, '\n');
    const char *exe = modmap_executable_path();
    if (*exe) {
        writer_puts(w, MTF_REC_PROGRAM " ");
        writer_puts(w, exe);
        writer_putc(w, '\n');
    }
}

/* Opens the log named by MALLOC_TRACE; FORKED_FROM is the parent's pid in
 * a fork child, else 0.  Log lock held (or single-threaded). */
static void open_log(pid_t forked_from)
{
    const char *pattern = mt_trace_path;
    if (pattern == NULL || *pattern == '\0')
        return;
    int fd = logfile_open(pattern, getpid(), forked_from != 0, log_state.path,
                          sizeof log_state.path);
    if (fd < 0) {
        say("cannot open the trace log ", pattern,
            ", no log is written: ", strerror(errno));
        return;
    }
    writer_init(&log_state.w, fd, log_buffer, sizeof log_buffer);
    writer_guard_descriptor(&log_state.w, log_state.path);
    log_state.gen++;
    log_state.logging = 1;
    write_header(&log_state.w, forked_from);
}

void tracer_start(void)
{
    threadlog_set_sink(log_sink);
    pthread_mutex_lock(&log_state.lock);
    if (!log_state.started) {
        log_state.started = 1;
        open_log(0);
        atomic_store(&mt_collecting, 1);
    }
    pthread_mutex_unlock(&log_state.lock);
}

/* Log lock held. */
static void close_log(void)
{
    if (!log_state.logging)
        return;
    writer_flush(&log_state.w);
    writer_close(&log_state.w);
    log_state.logging = 0;
}

void tracer_stop(void)
{
    atomic_store(&mt_collecting, 0);
    threadlog_flush_all();
    pthread_mutex_lock(&log_state.lock);
    if (log_state.logging) {
        writer_puts(&log_state.w, MTF_END "\n");
        stop_on_write_failure();
        close_log();
    }
    pthread_mutex_unlock(&log_state.lock);
}

void tracer_after_dlclose(void)
{
    gate_enter();
    int gone = modmap_mark_unloaded();
    gate_leave();
    if (gone == 0)
        return;
    /* The same addresses may now hold other code: resolve them anew, and
     * forget the unwinder's rules for them. */
    frametab_new_epoch();
    unwind_forget_code();
    pthread_mutex_lock(&log_state.lock);
    for (int i = 0; i < modmap_count() && log_state.logging; i++) {
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
    pthread_mutex_unlock(&log_state.lock);
}

void tracer_note(const char *a, const char *b, const char *c)
{
    pthread_mutex_lock(&log_state.lock);
    if (log_state.logging && !mt_config.classic) {
        writer_puts(&log_state.w, MTF_REC_COMMENT);
        writer_puts(&log_state.w, a);
        writer_puts(&log_state.w, b);
        writer_puts(&log_state.w, c);
        writer_putc(&log_state.w, '\n');
        stop_on_write_failure();
    }
    pthread_mutex_unlock(&log_state.lock);
}

/* At exit: write out what is buffered, then write every later line (frees
 * from destructors that run after us) as it comes. */
void tracer_exit_flush(void)
{
    threadlog_set_direct();
    pthread_mutex_lock(&log_state.lock);
    if (log_state.logging) {
        writer_flush(&log_state.w);
        log_state.w.unbuffered = 1;
        stop_on_write_failure();
    }
    pthread_mutex_unlock(&log_state.lock);
}

void tracer_write_out(void)
{
    /* The caller entered the recursion guard, so this thread is not inside
     * the tracer and holds none of its locks (a signal handler that
     * interrupted the tracer finds the guard set and never gets here):
     * waiting for other threads to let go of them is safe. */
    threadlog_flush_all();
    pthread_mutex_lock(&log_state.lock);
    if (log_state.logging)
        writer_flush(&log_state.w);
    pthread_mutex_unlock(&log_state.lock);
}

/* ---- the reachability scan's records (scan.c) -------------------------- */

void tracer_scan_lock(void)
{
    threadlog_lock_all(); /* a buffer's lock, then the sink's */
    pthread_mutex_lock(&log_state.lock);
}

static void put_lines(const char *lines, size_t n)
{
    if (log_state.logging)
        writer_put(&log_state.w, lines, n);
}

void tracer_scan_flush(void)
{
    threadlog_drain_locked(put_lines);
}

int tracer_scan_logging(void)
{
    return log_state.logging && !mt_config.classic;
}

void tracer_scan_put(const char *line, size_t n)
{
    if (tracer_scan_logging())
        writer_put(&log_state.w, line, n);
}

void tracer_scan_unlock(void)
{
    stop_on_write_failure();
    pthread_mutex_unlock(&log_state.lock);
    threadlog_unlock_all();
}

/* ---- fork ---------------------------------------------------------------
 * prepare takes every tracer lock so the child inherits consistent tables;
 * the child then starts a log of its own, seeded with the blocks it
 * inherited, and never writes into the parent's. */

/* The forking process, for the child's header: by the time the child
 * asks getppid() the parent may be gone (daemon()). */
static pid_t forking_pid;

void tracer_fork_prepare(void)
{
    gate_close_for_fork(); /* first: threads inside may wait for our locks */
    threadlog_flush_all(); /* no thread appends now: all are outside */
    pthread_mutex_lock(&log_state.lock);
    /* The parent may leave through libc's internal _exit right after the
     * fork (daemon()), past our wrappers: its log is written out now. */
    if (log_state.logging) {
        writer_flush(&log_state.w);
        stop_on_write_failure();
    }
    forking_pid = getpid();
    stacktab_lock_for_fork();
    frametab_lock_for_fork();
    livetab_lock_all();
    arena_lock_for_fork();
}

/* The table locks prepare took, in reverse order. */
static void release_table_locks(void)
{
    arena_unlock_after_fork();
    livetab_unlock_all();
    frametab_unlock_after_fork();
    stacktab_unlock_after_fork();
}

void tracer_fork_parent(void)
{
    release_table_locks();
    pthread_mutex_unlock(&log_state.lock);
    gate_open_after_fork();
}

static void dump_inherited(uintptr_t ptr, size_t size, uint32_t id, void *arg)
{
    (void)arg;
    struct stack *s = stacktab_by_id(id);
    if (s)
        emit_event(&log_state.w, MTF_OP_ALLOC, (void *)ptr, size, 1, s,
                   s->frames[0]);
}

void tracer_fork_child(void)
{
    pid_t parent = forking_pid;
    /* Only this thread survives, and it holds every lock: release them. */
    release_table_locks();
    pthread_mutex_init(&log_state.lock, NULL);
    modmap_reset_after_fork();
    threads_reset_after_fork();
    threadlog_reset_after_fork();
    gate_open_after_fork();
    if (!log_state.logging)
        return;
    /* The parent owns the descriptor's lock and the buffered bytes. */
    writer_discard(&log_state.w);
    writer_close(&log_state.w);
    log_state.logging = 0;
    open_log(parent);
    if (!log_state.logging)
        return;
    if (!mt_config.classic)
        writer_puts(&log_state.w,
                    MTF_REC_COMMENT "blocks inherited from the parent\n");
    livetab_each(dump_inherited, NULL);
    stop_on_write_failure();
}
