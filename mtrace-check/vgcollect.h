/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgcollect.h - what main.c, options.c and outputs.c call for the
 * valgrind-shaped reports (vgreport.h): --valgrind[=quiet|summary],
 * --xml FILE, --show-leak-kinds=, --num-callers=,
 * --valgrind-suppressions (valgrind's --gen-suppressions=all).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VGCOLLECT_H
#define MTC_VGCOLLECT_H

#include "engine.h"
#include "vgreport.h"

/* Option A (NEXT: the argument after it, or NULL): returns 1 when it is
 * one of these (*USED_NEXT set when it took NEXT), 0 when it is not, -1
 * when it is malformed (told). */
int vg_option(const char *a, const char *next, int *used_next);
/* After parsing: the options they combine with.  Returns 0, or -1 (told). */
int vg_options_check(int show_reachable, int fail_on, int json, int folded);
/* Whether a valgrind-shaped report was asked for; whether its text was
 * (it then takes the report's place on standard output). */
int vg_active(void);
int vg_text(void);
/* After a log's check (engine_finish): its process, and its text. */
void vg_collect(const struct engine *e, const char *log);
/* After the last log: the summary of the processes, the XML file.
 * Returns 0, or -1 when the XML file could not be written (told). */
int vg_finish(void);

#endif
