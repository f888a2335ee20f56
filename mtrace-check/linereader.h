/* linereader.h - streaming line reader.  Reads the log in large chunks and
 * hands out one line at a time, so memory is bounded by the longest line,
 * never by the size of the log.  Lines may contain any byte, NUL included.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_LINEREADER_H
#define MTC_LINEREADER_H

#include "util.h"

#include <stddef.h>

struct line_reader {
    int fd;
    int owns_fd;
    int at_eof;
    int read_errno; /* errno of a failed read(), 0 if none */
    char *buf;
    size_t cap;
    size_t start;  /* first unconsumed byte */
    size_t end;    /* one past the last byte read */
    size_t mapped; /* bytes of the file mapped at buf, 0: read() */
};

/* Prepare a reader on an open descriptor (not closed by lr_close). */
void lr_init_fd(struct line_reader *lr, int fd);

/* Open PATH ("-" is standard input).  Returns 0, or an errno value; a
 * directory is refused with EISDIR.  A regular file is mapped rather than
 * read (no copy through read()); bytes appended after the open are still
 * read, and a file that shrinks under the mapping is a read error (EIO). */
int lr_open(struct line_reader *lr, const char *path);

/* Next line without its "\n" (a last line lacking one is still a line).
 * Returns 1 with *line and *len set, 0 at end of input, -1 on a read error
 * (errno in lr->read_errno).  The line stays valid until the next call. */
int lr_next(struct line_reader *lr, const char **line, size_t *len);

/* lr_next that also splits the line as split_fields would (at most MAX
 * fields into F, count in *NF), in the same pass that finds its end. */
int lr_next_split(struct line_reader *lr, const char **line, size_t *len,
                  struct slice *f, size_t max, size_t *nf);

void lr_close(struct line_reader *lr);

#endif
