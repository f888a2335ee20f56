/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growthjson.h - the JSON report's "growth" member (findings/growth.h,
 * doc/json.md).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_GROWTHJSON_H
#define MTC_GROWTHJSON_H

#include "findings/findings.h"

#include <stdio.h>

/* "],\n\"growth\":[ ..." (the array left open, as the members before
 * "totals" are) for a log with 3 or more scans read; nothing else. */
void growth_json(FILE *out, const struct findings *f);

#endif
