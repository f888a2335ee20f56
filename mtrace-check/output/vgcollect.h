/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgcollect.h - what cli/main.c calls for the valgrind-shaped reports
 * (vgreport.h): --valgrind[=quiet|summary], --xml FILE,
 * --show-leak-kinds=, --num-callers=, --valgrind-suppressions
 * (valgrind's --gen-suppressions=all).  Their writers, valgrind_writer
 * and vgxml_writer, are rows of outputs.c's table (writer.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VGCOLLECT_H
#define MTC_VGCOLLECT_H

#include "options/options.h"
#include "output/vgreport.h"
#include "output/writer.h"

/* Takes the options of the valgrind shapes from O (options.h: valgrind,
 * xml, show_leak_kinds, num_callers, valgrind_suppressions, with
 * show_reachable and fail_on), opens the XML file.  Returns 0, or -1
 * (told: status 2). */
int vg_configure(const struct options *o);
/* After the last log: the XML file.  Returns 0, or -1 when it could not
 * be written (told). */
int vg_finish(void);

#endif
