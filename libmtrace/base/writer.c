/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer.c - see writer.h. */
#include "base/writer.h"
#include "base/sysfd.h"
#include "base/fmt.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

void writer_init(struct writer *w, int fd, char *buf, size_t cap)
{
    w->path = NULL;
    w->dev = w->ino = 0;
    w->not_regular = 0;
    w->owner = getpid();
    w->fd = fd;
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->unbuffered = 0;
    w->failed = 0;
    w->drain = NULL;
}

static int write_all_uncancelled(int fd, const char *s, size_t n);

int write_all(int fd, const char *s, size_t n)
{
    /* write(2) is a cancellation point: a thread cancelled in here would
     * unwind out of the tracer holding its lock. */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    int err = write_all_uncancelled(fd, s, n);
    pthread_setcancelstate(cancel_state, NULL);
    return err;
}

static int write_all_uncancelled(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t done = write(fd, s, n);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (done == 0)
            return EIO; /* no progress: treat as a device error */
        s += done;
        n -= (size_t)done;
    }
    return 0;
}

/* Descriptors below this are the program's to choose (bash's "exec 5>f"
 * dup2()s over whatever is there). */
#define HIGH_FD_FLOOR 900

static int move_high(int fd)
{
    int high = sys_fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD_FLOOR);
    if (high < 0)
        return fd;
    sys_close(fd);
    return high;
}

/* The kernel grows a process's descriptor table when a descriptor that
 * high is first made; while threads share the table, growing it waits for
 * an RCU grace period (expand_fdtable): mtrace() called with one other
 * thread running took 16-40 ms instead of 0.13-0.17 with forkgate.c's
 * membarrier registration, which waits the same way (bench/RESULTS.md,
 * 2026-11-25).  So the table is grown while the library loads, before the
 * program has threads.  A table never shrinks. */
void writer_grow_fd_table(void)
{
    int fd = sys_open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0)
        sys_close(move_high(fd));
}

static int remember_identity(struct writer *w)
{
    struct stat st;
    if (fstat(w->fd, &st) != 0)
        return -1;
    w->dev = (unsigned long)st.st_dev;
    w->ino = (unsigned long)st.st_ino;
    return 0;
}

void writer_guard_descriptor(struct writer *w, const char *path)
{
    if (w->fd < 0)
        return;
    struct stat st;
    w->not_regular = fstat(w->fd, &st) != 0 || !S_ISREG(st.st_mode);
    w->fd = move_high(w->fd);
    w->path = path;
    if (remember_identity(w) != 0)
        w->path = NULL;
}

/* Is w->fd still our file?  If the program closed or replaced it, reopen
 * the log for appending.  Returns 0, or an errno. */
static int check_descriptor(struct writer *w)
{
    struct stat st;
    if (w->path == NULL)
        return 0;
    if (fstat(w->fd, &st) == 0 && (unsigned long)st.st_dev == w->dev &&
        (unsigned long)st.st_ino == w->ino)
        return 0;
    /* Not ours any more: never close it, it belongs to the program now. */
    int fd;
    do
        fd = sys_open(w->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return errno;
    w->fd = move_high(fd);
    return remember_identity(w) == 0 ? 0 : EBADF;
}

/* The signals a write can raise in the writer: SIGXFSZ past RLIMIT_FSIZE,
 * SIGPIPE on a pipe whose reader left.  Their default action kills. */
static void write_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGXFSZ);
    sigaddset(set, SIGPIPE);
}

/* write_all with those signals blocked; one that this write raised (it was
 * not pending before) is consumed, so the program never sees it and the
 * write fails with EFBIG or EPIPE instead. */
static int write_all_quietly(int fd, const char *s, size_t n)
{
    sigset_t raised, old, pending;
    write_signals(&raised);
    pthread_sigmask(SIG_BLOCK, &raised, &old);
    sigpending(&pending);
    int err = write_all(fd, s, n);
    if (err == EFBIG || err == EPIPE) {
        int sig = err == EFBIG ? SIGXFSZ : SIGPIPE;
        if (!sigismember(&pending, sig)) {
            sigset_t one;
            struct timespec now = { 0, 0 };
            sigemptyset(&one);
            sigaddset(&one, sig);
            /* Raw: sigtimedwait is one of our wrappers (restart.c). */
            syscall(SYS_rt_sigtimedwait, &one, NULL, &now, _NSIG / 8);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

/* Asked at every flush: the program may lower RLIMIT_FSIZE at any time. */
static int may_raise_signal(const struct writer *w)
{
    struct rlimit fsize;
    return w->not_regular || (getrlimit(RLIMIT_FSIZE, &fsize) == 0 &&
                              fsize.rlim_cur != RLIM_INFINITY);
}

/* The buffer to the drain; its errors are the writer's, but for EAGAIN
 * (nothing was done, the bytes stay). */
static int drain(struct writer *w, enum writer_drain how)
{
    int err = w->drain(w, how);
    if (err && err != EAGAIN)
        w->failed = err;
    return err;
}

static int flush_as(struct writer *w, enum writer_drain how)
{
    /* A drain may hold bytes of its own (a frame to end) even when the
     * buffer is empty. */
    if (w->drain && !w->failed && w->fd >= 0)
        return drain(w, how);
    if (w->failed || w->fd < 0 || w->len == 0) {
        w->len = 0;
        return w->failed;
    }
    if (getpid() != w->owner)
        return EAGAIN; /* a vfork() child: the parent will write it */
    int err = check_descriptor(w);
    if (err) {
        w->failed = err;
        w->len = 0;
        return err;
    }
    err = may_raise_signal(w) ? write_all_quietly(w->fd, w->buf, w->len)
                              : write_all(w->fd, w->buf, w->len);
    w->len = 0;
    if (err)
        w->failed = err;
    return err;
}

int writer_flush(struct writer *w)
{
    return flush_as(w, WRITER_OUT);
}

int writer_flush_nowait(struct writer *w)
{
    return flush_as(w, WRITER_OUT_NOWAIT);
}

/* Room for more in a full buffer. */
static int make_room(struct writer *w)
{
    return flush_as(w, WRITER_ROOM);
}

void writer_discard(struct writer *w)
{
    w->len = 0;
}

void writer_put(struct writer *w, const char *s, size_t n)
{
    if (w->failed || w->fd < 0)
        return;
    /* A piece that fits the buffer is not split across two writes, so a
     * log cut short (a crash, an exec racing other threads) ends with
     * whole event lines.  When the buffer cannot be written out (only in a
     * vfork() child), what does not fit is dropped. */
    if (w->len + n > w->cap && n <= w->cap && make_room(w))
        return;
    while (n > 0) {
        if (w->len == w->cap && (make_room(w) || w->len == w->cap))
            return;
        size_t room = w->cap - w->len;
        size_t part = n < room ? n : room;
        memcpy(w->buf + w->len, s, part);
        w->len += part;
        s += part;
        n -= part;
    }
    /* Unbuffered mode ends a line at a time: flush at each newline. */
    if (w->unbuffered && w->len && w->buf[w->len - 1] == '\n')
        writer_flush(w);
}

char *writer_room(struct writer *w, size_t n)
{
    if (w->failed || w->fd < 0 || n > w->cap)
        return NULL;
    if (w->len + n > w->cap && (make_room(w) || w->len + n > w->cap))
        return NULL;
    return w->buf + w->len;
}

void writer_commit(struct writer *w, size_t n)
{
    w->len += n;
    if (w->unbuffered && n && w->buf[w->len - 1] == '\n')
        writer_flush(w);
}

void writer_puts(struct writer *w, const char *s)
{
    writer_put(w, s, strlen(s));
}

void writer_putc(struct writer *w, char c)
{
    writer_put(w, &c, 1);
}

void writer_ptr(struct writer *w, uint64_t v)
{
    char tmp[24];
    writer_put(w, tmp, (size_t)(fmt_ptr(tmp, v) - tmp));
}

void writer_dec(struct writer *w, uint64_t v)
{
    char tmp[24];
    writer_put(w, tmp, (size_t)(fmt_dec(tmp, v) - tmp));
}

void writer_close(struct writer *w)
{
    if (w->drain) {
        if (w->fd >= 0)
            w->drain(w, WRITER_CLOSE);
        w->fd = -1;
        w->len = 0;
        return;
    }
    struct stat st;
    int ours = w->path == NULL ||
               (fstat(w->fd, &st) == 0 && (unsigned long)st.st_dev == w->dev &&
                (unsigned long)st.st_ino == w->ino);
    if (w->fd >= 0 && ours)
        sys_close(w->fd);
    w->fd = -1;
    w->len = 0;
}
