/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growthtext.h - the text report's section on memory that keeps growing
 * while still reachable (findings/growth.h), and the scans' cost.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_GROWTHTEXT_H
#define MTC_GROWTHTEXT_H

#include "findings/findings.h"

#include <stdio.h>

/* Nothing for a log with fewer than 3 scans (the exit scan not counted). */
void growth_text(FILE *out, const struct findings *f);

#endif
