/* writer.c - see writer.h.  GPL-3.0-or-later. */
#include "writer.h"
#include "fmt.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>

void writer_init(struct writer *w, int fd, char *buf, size_t cap)
{
    w->fd = fd;
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->unbuffered = 0;
    w->failed = 0;
}

int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t done = write(fd, s, n);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (done == 0)
            return EIO;   /* no progress: treat as a device error */
        s += done;
        n -= (size_t)done;
    }
    return 0;
}

int writer_flush(struct writer *w)
{
    if (w->failed || w->fd < 0 || w->len == 0) {
        w->len = 0;
        return w->failed;
    }
    int err = write_all(w->fd, w->buf, w->len);
    w->len = 0;
    if (err)
        w->failed = err;
    return err;
}

void writer_discard(struct writer *w)
{
    w->len = 0;
}

void writer_put(struct writer *w, const char *s, size_t n)
{
    if (w->failed || w->fd < 0)
        return;
    while (n > 0) {
        if (w->len == w->cap && writer_flush(w))
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

void writer_puts(struct writer *w, const char *s)
{
    writer_put(w, s, strlen(s));
}

void writer_putc(struct writer *w, char c)
{
    writer_put(w, &c, 1);
}

void writer_hex(struct writer *w, uint64_t v)
{
    char tmp[24];
    writer_put(w, tmp, (size_t)(fmt_hex(tmp, v) - tmp));
}

void writer_ptr(struct writer *w, uint64_t v)
{
    char tmp[24];
    writer_put(w, tmp, (size_t)(fmt_ptr(tmp, v) - tmp));
}

void writer_size(struct writer *w, uint64_t v)
{
    char tmp[24];
    writer_put(w, tmp, (size_t)(fmt_size(tmp, v) - tmp));
}

void writer_dec(struct writer *w, uint64_t v)
{
    char tmp[24];
    writer_put(w, tmp, (size_t)(fmt_dec(tmp, v) - tmp));
}
