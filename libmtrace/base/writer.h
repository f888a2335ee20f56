/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer.h - buffered output to the log with write(2) only.  The caller
 * serialises access (the tracer's log lock); the writer itself has no lock
 * so it can be unit-tested and reset in a fork child. */
#ifndef MT_WRITER_H
#define MT_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a drain (below) is asked to do with the writer's buffer. */
enum writer_drain {
    WRITER_ROOM,       /* it is full: make room, maybe in the background */
    WRITER_OUT,        /* everything into the file now (writer_flush)    */
    WRITER_OUT_NOWAIT, /* the same from a dying thread that may hold
                          locks: give up rather than wait for one         */
    WRITER_CLOSE,      /* the file is closed (writer_close)              */
};

struct writer {
    int fd; /* -1: nothing is written                        */
    /* When PATH is set, the file FD must still be (dev, ino): a program
     * may close every descriptor it does not know, or dup2() over ours.
     * Each flush checks, and reopens PATH for appending when it is not. */
    const char *path;
    unsigned long dev, ino;
    /* A write may raise a signal whose default action kills the program:
     * SIGPIPE (the log is not a regular file) or SIGXFSZ (RLIMIT_FSIZE is
     * finite, checked at each flush).  Writes then run with them blocked,
     * and one they raise is taken back. */
    int not_regular;
    /* The process the descriptor belongs to.  A vfork() child shares our
     * memory but not our descriptors: it must not write (or reopen) on
     * our behalf, or the parent's next write lands on top of its output. */
    pid_t owner;
    char *buf;
    size_t cap, len;
    int unbuffered; /* after the exit flush: every append goes out   */
    int failed;     /* a write failed: errno of the failure, else 0  */
    /* When set, the buffer goes to DRAIN instead of write(2): a
     * compressed log (zstdlog.h), which owns the file from then on and
     * may give the writer another buffer.  Returns 0 or an errno; EAGAIN
     * leaves the bytes buffered (a vfork() child). */
    int (*drain)(struct writer *w, enum writer_drain how);
};

void writer_init(struct writer *w, int fd, char *buf, size_t cap);
/* Guards W's descriptor as described at struct writer; moves it to a high
 * number, out of the way of programs that pick their own. */
void writer_guard_descriptor(struct writer *w, const char *path);
/* Makes room in the descriptor table for those high numbers now, while
 * the process has one thread (writer.c says why). */
void writer_grow_fd_table(void);
/* Appends; flushes first when the buffer would overflow.  After a failure
 * every call is a no-op. */
void writer_put(struct writer *w, const char *s, size_t n);
void writer_puts(struct writer *w, const char *s);
/* N bytes of room at the end of the buffer (flushing first when it has
 * less), to format a piece in place and hand it over with writer_commit:
 * no copy, one call for a piece of many fields.  NULL when there is none
 * (a failure, a buffer smaller than N, one that cannot be written out):
 * the caller then writes the piece with writer_put, which does what it
 * always did in those cases. */
char *writer_room(struct writer *w, size_t n);
/* The first N bytes of the room just asked for are the piece. */
void writer_commit(struct writer *w, size_t n);
void writer_putc(struct writer *w, char c);
void writer_ptr(struct writer *w, uint64_t v); /* %p              */
void writer_dec(struct writer *w, uint64_t v);
/* Writes out the buffer, retrying on EINTR and partial writes.
 * Returns 0, or the errno that made it give up (then w->failed is set). */
int writer_flush(struct writer *w);
/* The same from a thread dying of a signal (WRITER_OUT_NOWAIT). */
int writer_flush_nowait(struct writer *w);
/* Closes the descriptor if it is still ours (see struct writer), without
 * flushing; the writer then writes nothing. */
void writer_close(struct writer *w);
/* Forgets buffered bytes without writing them (fork child). */
void writer_discard(struct writer *w);

/* write(2) of all N bytes, retrying on EINTR and partial writes.
 * Returns 0 or an errno. */
int write_all(int fd, const char *s, size_t n);

#endif
