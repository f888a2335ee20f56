/* linereader.c - streaming line reader (see linereader.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "linereader.h"
#include "fields.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CHUNK = 1 << 18 };

void lr_init_fd(struct line_reader *lr, int fd)
{
	memset(lr, 0, sizeof *lr);
	lr->fd = fd;
	lr->cap = CHUNK;
	lr->buf = xmalloc(lr->cap);
}

int lr_open(struct line_reader *lr, const char *path)
{
	struct stat st;
	int fd = 0;

	if (strcmp(path, "-") != 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (fd != 0)
			close(fd);
		return EISDIR;
	}
	lr_init_fd(lr, fd);
	lr->owns_fd = fd != 0;
	return 0;
}

/* Make room for another read: drop consumed bytes, grow if the pending
 * partial line already fills the buffer (a line of megabytes). */
static void make_room(struct line_reader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	if (lr->end == lr->cap) {
		lr->cap *= 2;
		lr->buf = xrealloc(lr->buf, lr->cap);
	}
}

/* Read more bytes; returns bytes read, 0 at EOF, -1 on error. */
static ssize_t fill(struct line_reader *lr)
{
	ssize_t got;

	make_room(lr);
	do
		got = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		lr->read_errno = errno;
		return -1;
	}
	lr->end += (size_t)got;
	return got;
}

int lr_next(struct line_reader *lr, const char **line, size_t *len)
{
	size_t scanned = lr->start;

	for (;;) {
		char *nl = memchr(lr->buf + scanned, '\n', lr->end - scanned);
		if (nl) {
			*line = lr->buf + lr->start;
			*len = (size_t)(nl - *line);
			lr->start = (size_t)(nl - lr->buf) + 1;
			return 1;
		}
		if (lr->at_eof)
			break;
		scanned = lr->end - lr->start;   /* offset survives make_room */
		ssize_t got = fill(lr);
		scanned += lr->start;
		if (got < 0)
			return -1;
		if (got == 0)
			lr->at_eof = 1;
	}
	if (lr->start < lr->end) {       /* truncated last line */
		*line = lr->buf + lr->start;
		*len = lr->end - lr->start;
		lr->start = lr->end;
		return 1;
	}
	return 0;
}

int lr_next_split(struct line_reader *lr, const char **line, size_t *len,
		  struct slice *f, size_t max, size_t *nf)
{
	const char *nl;

	for (;;) {
		const char *p = lr->buf + lr->start, *end = lr->buf + lr->end;
		*nf = split_line(p, end, f, max, &nl);
		if (nl || (lr->at_eof && p < end)) {
			/* A line, or the truncated last line. */
			*line = p;
			*len = (size_t)((nl ? nl : end) - p);
			lr->start = (size_t)((nl ? nl + 1 : end) - lr->buf);
			return 1;
		}
		if (lr->at_eof)
			return 0;
		/* The line continues past the buffer: read more and split again
		 * from its start, since fill() may move it. */
		ssize_t got = fill(lr);
		if (got < 0)
			return -1;
		if (got == 0)
			lr->at_eof = 1;
	}
}

void lr_close(struct line_reader *lr)
{
	if (lr->owns_fd)
		close(lr->fd);
	free(lr->buf);
	lr->buf = NULL;
}
