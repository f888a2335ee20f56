/* SPDX-License-Identifier: GPL-3.0-or-later */
/* locate.h - libmtrace.so and mtrace-check, found relative to mtrace-run
 * itself (locate.c says where).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTR_LOCATE_H
#define MTR_LOCATE_H

/* *LIB and *CHECKER get malloc'd absolute paths; returns 0, or -1 (told). */
int locate_tools(char **lib, char **checker);

#endif
