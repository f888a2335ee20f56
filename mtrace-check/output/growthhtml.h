/* SPDX-License-Identifier: GPL-3.0-or-later */
/* growthhtml.h - the HTML page's data for its chart of the stacks whose
 * still reachable memory keeps growing (findings/growth.h, doc/html.md).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_GROWTHHTML_H
#define MTC_GROWTHHTML_H

#include "findings/findings.h"

#include <stdio.h>

/* The most stacks the chart draws. */
#define GROWTH_HTML_TOP 5

/* ",\n\"growth\":{...}" or ",\n\"growth\":null": the scans read (their
 * time on the page's time axis, ms, or null) and the top growing stacks'
 * still reachable bytes at each. */
void growth_html_data(FILE *o, const struct findings *f);

#endif
