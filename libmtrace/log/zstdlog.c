/* SPDX-License-Identifier: GPL-3.0-or-later */
/* zstdlog.c - see zstdlog.h. */
#define _GNU_SOURCE
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem: allocations go to libc */
#include "log/zstdlog.h"
#include "../include/mtrace-format.h"
#include "base/config.h"
#include "base/debug.h"
#include "base/diag.h"
#include "base/guard.h"
#include "base/real.h"
#include "base/spin.h"
#include "base/writer.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#define ZLOG_BUFFER (1 << 16) /* lines a queued buffer holds            */
#define ZLOG_QUEUE 3          /* full buffers waiting for the thread     */
#define ZLOG_OUT (256 * 1024) /* compressed bytes; frames held at exec */
/* Level 1: on bench/wl's log 8.4x smaller at 740 MB/s of one core;
 * level 3 gains 7% at 658 MB/s (bench/RESULTS.md, "Compressed logs"). */
#define ZLOG_LEVEL 1

enum thread_state {
    THREAD_NONE,    /* not asked for yet                         */
    THREAD_WANTED,  /* a buffer filled: the next poll creates it */
    THREAD_RUNNING, /* jobs go to it                             */
    THREAD_FAILED,  /* could not be created: the program's threads compress */
};

/* One compressed stream per process.  The context (cctx, out) is used by
 * the thread while it has jobs (count > 0), else by the holder of the log
 * lock: only that holder queues jobs, so once it has seen the queue empty
 * the context is its own until it queues again. */
static struct {
    pthread_mutex_t lock; /* the queue, the thread's state      */
    pthread_cond_t work;  /* to the thread: a job is queued     */
    pthread_cond_t done;  /* from the thread: a job is finished */
    ZSTD_CCtx *cctx;
    struct writer out; /* the file, fed with compressed bytes  */
    char *buffers;     /* ZLOG_QUEUE + 1 buffers, then out's   */
    char *spare[ZLOG_QUEUE + 1];
    int nspare;
    struct {
        char *buf;
        size_t len;
    } queue[ZLOG_QUEUE];
    int head, count;  /* the head job is the thread's while count > 0 */
    int frame_open;   /* bytes went into a frame not ended yet  */
    int failed;       /* errno of the thread's failed write     */
    int exec_pending; /* zstdlog_exec_begin() until it failed   */
    enum thread_state thread;
    pid_t owner;       /* the process whose stream this is       */
    _Atomic pid_t tid; /* the thread's id, 0 while there is none */
} z = { .lock = PTHREAD_MUTEX_INITIALIZER,
        .work = PTHREAD_COND_INITIALIZER,
        .done = PTHREAD_COND_INITIALIZER };

atomic_int zstdlog_thread_wanted;

int zstdlog_wanted(const char *path)
{
    if (mt_config.compress != COMPRESS_AUTO)
        return mt_config.compress == COMPRESS_ZSTD;
    size_t n = path ? strlen(path) : 0, k = sizeof MTF_ZSTD_SUFFIX - 1;
    return n > k && strcmp(path + n - k, MTF_ZSTD_SUFFIX) == 0;
}

static void lock(void)
{
    mutex_lock(&z.lock, LOCK_RANK_ZSTD);
}

static void unlock(void)
{
    mutex_unlock(&z.lock, LOCK_RANK_ZSTD);
}

/* A thread dying of a signal may hold the lock itself: a while, no more. */
static int lock_soon(void)
{
    for (int i = 0; i < 1000; i++) {
        if (mutex_trylock(&z.lock, LOCK_RANK_ZSTD))
            return 1;
        sched_yield();
    }
    return 0;
}

/* pthread_cond_wait is a cancellation point: a program thread cancelled
 * in here would leave holding the log lock. */
static void wait_on(pthread_cond_t *c)
{
    int state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    pthread_cond_wait(c, &z.lock);
    pthread_setcancelstate(state, NULL);
}

/* Until the thread has finished every queued job (lock held). */
static void wait_idle(void)
{
    while (z.count > 0)
        wait_on(&z.done);
}

/* ---- compressing (the context's user only) ------------------------------ */

static void *zalloc(void *opaque, size_t size)
{
    (void)opaque;
    return __libc_malloc(size);
}

static void zfree(void *opaque, void *p)
{
    (void)opaque;
    __libc_free(p);
}

static int zstd_failure(size_t code)
{
    static atomic_int said;
    if (!atomic_exchange(&said, 1))
        diag("compressing the trace log failed: ", ZSTD_getErrorName(code),
             NULL);
    return ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation ? ENOMEM
                                                                   : EIO;
}

/* LEN bytes at BUF into the stream, then HOW: ZSTD_e_flush ends the
 * block (what was given can be decompressed from the file once written),
 * ZSTD_e_end the frame.  The compressed bytes go to out, written to the
 * file when it fills; the caller writes the rest.  0 or an errno. */
static int compress(const char *buf, size_t len, ZSTD_EndDirective how)
{
    ZSTD_inBuffer in = { buf, len, 0 };
    for (;;) {
        ZSTD_outBuffer o = { z.out.buf, z.out.cap, z.out.len };
        size_t left = ZSTD_compressStream2(z.cctx, &o, &in, how);
        z.out.len = o.pos;
        if (ZSTD_isError(left))
            return zstd_failure(left);
        if (left == 0)
            break;
        int err = writer_flush(&z.out); /* out is full */
        if (err)
            return err;
    }
    z.frame_open = how != ZSTD_e_end;
    return z.out.failed;
}

/* A buffer of the log's, written so that a process killed at any moment
 * (SIGKILL) loses no more than the plain log would: compressed, the block
 * ended, out written. */
static int compress_piece(const char *buf, size_t len)
{
    int err = len ? compress(buf, len, ZSTD_e_flush) : 0;
    return err ? err : writer_flush(&z.out);
}

/* ---- the thread ---------------------------------------------------------- */

static void *compressor(void *unused)
{
    (void)unused;
    guard_enter(); /* whatever it allocates is ours, never the program's */
    prctl(PR_SET_NAME, "mtrace-zstd", 0, 0, 0);
    atomic_store(&z.tid, gettid());
    lock();
    for (;;) {
        while (z.count == 0)
            pthread_cond_wait(&z.work, &z.lock);
        char *buf = z.queue[z.head].buf;
        size_t len = z.queue[z.head].len;
        unlock();
        int err = compress_piece(buf, len);
        lock();
        if (err && !z.failed)
            z.failed = err;
        z.spare[z.nspare++] = buf;
        z.head = (z.head + 1) % ZLOG_QUEUE;
        z.count--;
        pthread_cond_broadcast(&z.done);
    }
    return NULL;
}

void zstdlog_start_thread(void)
{
    /* A vfork() child shares our memory but not our threads. */
    if (getpid() != z.owner || !atomic_exchange(&zstdlog_thread_wanted, 0))
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread inherits it */
    pthread_attr_t attr;
    pthread_t t;
    int err = pthread_attr_init(&attr);
    if (err == 0) {
        /* The default stack size: glibc carves the static TLS out of it,
         * and a program's may be large. */
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        err = pthread_create(&t, &attr, compressor, NULL);
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    lock();
    z.thread = err ? THREAD_FAILED : THREAD_RUNNING;
    unlock();
    if (err)
        diag("cannot start the thread that compresses the trace log (",
             strerror(err), "): the program's threads compress it", NULL);
}

/* ---- the log writer's drain ---------------------------------------------- */

/* Everything queued, then W's buffer, into the file, the frame ended on
 * the calling thread.  WAIT 0: a dying thread, which may hold our lock or
 * be the compressor itself. */
static int finish(struct writer *w, int wait)
{
    if (wait)
        lock();
    else if (!lock_soon())
        return EAGAIN;
    if (!wait && gettid() == atomic_load(&z.tid)) {
        unlock(); /* the compressor cannot wait for itself */
        return EAGAIN;
    }
    wait_idle();
    int err = z.failed;
    unlock();
    if (!err && (z.frame_open || w->len))
        err = compress(w->buf, w->len, ZSTD_e_end);
    if (!err)
        err = writer_flush(&z.out);
    w->len = 0;
    return err;
}

/* While an exec is pending (zstdlog_exec_begin), W's full buffer becomes
 * a whole frame kept in out: written when out has no room left for
 * another, or when the exec failed.  An image replaced meanwhile so
 * leaves no frame cut in the middle in the file. */
static int hold_frame(struct writer *w)
{
    int err = 0;
    if (z.out.cap - z.out.len < ZSTD_compressBound(w->len) + 32)
        err = writer_flush(&z.out);
    if (!err)
        err = compress(w->buf, w->len, ZSTD_e_end);
    w->len = 0;
    return err;
}

/* W's full buffer to the thread, W gets an empty one; without a thread,
 * the calling thread compresses it. */
static int submit(struct writer *w)
{
    if (z.exec_pending)
        return hold_frame(w);
    lock();
    if (z.thread != THREAD_RUNNING) {
        if (z.thread == THREAD_NONE) {
            z.thread = THREAD_WANTED;
            atomic_store(&zstdlog_thread_wanted, 1);
        }
        unlock();
        int err = compress_piece(w->buf, w->len);
        w->len = 0;
        return err;
    }
    while (z.count == ZLOG_QUEUE)
        wait_on(&z.done);
    int err = z.failed;
    if (err == 0) {
        int tail = (z.head + z.count) % ZLOG_QUEUE;
        z.queue[tail].buf = w->buf;
        z.queue[tail].len = w->len;
        z.count++;
        w->buf = z.spare[--z.nspare];
        pthread_cond_signal(&z.work);
    }
    w->len = 0;
    unlock();
    return err;
}

static int drain(struct writer *w, enum writer_drain how)
{
    if (getpid() != z.owner)
        return EAGAIN; /* a vfork() child: the bytes stay for the parent */
    switch (how) {
    case WRITER_ROOM:
        return submit(w);
    case WRITER_OUT:
        return finish(w, 1);
    case WRITER_OUT_NOWAIT:
        return finish(w, 0);
    case WRITER_CLOSE:
        lock();
        wait_idle();
        unlock();
        writer_close(&z.out);
        return 0;
    }
    return EINVAL;
}

/* ---- set-up --------------------------------------------------------------- */

/* The buffers, the context: once per process (a fork child reuses its
 * copies).  0 or an errno. */
static int prepare_stream(void)
{
    if (z.buffers == NULL) {
        size_t size = (ZLOG_QUEUE + 1) * ZLOG_BUFFER + ZLOG_OUT;
        void *p = real_mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return errno;
        z.buffers = p;
    }
    if (z.cctx == NULL) {
        ZSTD_customMem mem = { zalloc, zfree, NULL };
        z.cctx = ZSTD_createCCtx_advanced(mem);
        if (z.cctx == NULL)
            return ENOMEM;
        ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_compressionLevel, ZLOG_LEVEL);
        ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_checksumFlag, 1);
    }
    ZSTD_CCtx_reset(z.cctx, ZSTD_reset_session_only);
    return 0;
}

/* The header lines as they are, in a skippable frame: readers of zstd
 * pass over it, logfile.c reads the "proc=" of an earlier image there. */
static void write_header_frame(const char *text, size_t len)
{
    unsigned char head[8];
    uint32_t magic = MTF_ZSTD_HEADER_MAGIC, n = (uint32_t)len;
    for (int i = 0; i < 4; i++) {
        head[i] = (unsigned char)(magic >> (8 * i));
        head[4 + i] = (unsigned char)(n >> (8 * i));
    }
    writer_put(&z.out, (const char *)head, sizeof head);
    writer_put(&z.out, text, len);
}

int zstdlog_attach(struct writer *w)
{
    int err = prepare_stream();
    if (err)
        return err;
    for (int i = 0; i < ZLOG_QUEUE; i++)
        z.spare[i] = z.buffers + (size_t)(i + 1) * ZLOG_BUFFER;
    z.nspare = ZLOG_QUEUE;
    z.head = z.count = z.frame_open = z.failed = z.exec_pending = 0;
    z.owner = w->owner;
    /* The file is the stream's now; W only buffers. */
    z.out = *w;
    z.out.drain = NULL;
    z.out.unbuffered = 0;
    z.out.buf = z.buffers + (size_t)(ZLOG_QUEUE + 1) * ZLOG_BUFFER;
    z.out.cap = ZLOG_OUT;
    z.out.len = 0;
    size_t header = w->len < ZLOG_BUFFER ? w->len : ZLOG_BUFFER;
    write_header_frame(w->buf, header);
    memcpy(z.buffers, w->buf, header);
    w->buf = z.buffers;
    w->cap = ZLOG_BUFFER;
    w->len = header;
    w->drain = drain;
    return 0;
}

void zstdlog_exec_begin(void)
{
    if (getpid() == z.owner)
        z.exec_pending = 1;
}

void zstdlog_exec_failed(void)
{
    if (getpid() != z.owner || !z.exec_pending)
        return;
    z.exec_pending = 0;
    writer_flush(&z.out); /* a failure shows at the next drain */
}

/* The log lock is held and the stream was written out (queue empty): the
 * thread, if any, is waiting for work or about to, and must not hold our
 * lock at the fork. */
void zstdlog_fork_prepare(void)
{
    lock();
}

void zstdlog_fork_parent(void)
{
    unlock();
}

void zstdlog_fork_child(void)
{
    /* Only this thread survives: no compressor, an unlocked lock. */
    pthread_mutex_init(&z.lock, NULL);
    pthread_cond_init(&z.work, NULL);
    pthread_cond_init(&z.done, NULL);
    LOCK_RANK_DROP(LOCK_RANK_ZSTD);
    z.thread = THREAD_NONE;
    atomic_store(&z.tid, 0);
    atomic_store(&zstdlog_thread_wanted, 0);
    z.count = z.head = 0;
    z.exec_pending = 0;
    /* The parent's file and bytes are the parent's. */
    z.out.len = 0;
    if (z.owner)
        writer_close(&z.out);
    z.owner = getpid();
}
