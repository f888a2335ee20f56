/* SPDX-License-Identifier: GPL-3.0-or-later */
/* siblings.h - the right log for the right program (see siblings.c).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_SIBLINGS_H
#define MTC_SIBLINGS_H

/* LOG was named with BINARY: when LOG is another program's log (its "#p"
 * record names another executable) and one of LOG's siblings (LOG.PID,
 * LOG.PID.N, and for LOG.zst or LOG.gz, LOG-stem.PID.zst) is BINARY's,
 * returns that sibling's path (malloc'd), having said so on stderr;
 * else NULL (LOG is checked as it is). */
char *sibling_for_binary(const char *log, const char *binary);

#endif
