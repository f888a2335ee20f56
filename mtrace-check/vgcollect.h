/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgcollect.h - what main.c and outputs.c call for the valgrind-shaped
 * reports (vgreport.h): --valgrind[=quiet|summary], --xml FILE,
 * --show-leak-kinds=, --num-callers=, --valgrind-suppressions
 * (valgrind's --gen-suppressions=all).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VGCOLLECT_H
#define MTC_VGCOLLECT_H

#include "engine.h"
#include "options.h"
#include "vgreport.h"

/* Takes the options of the valgrind shapes from O (options.h: valgrind,
 * xml, show_leak_kinds, num_callers, valgrind_suppressions, with
 * show_reachable and fail_on), opens the XML file.  Returns 0, or -1
 * (told: status 2). */
int vg_configure(const struct options *o);
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
