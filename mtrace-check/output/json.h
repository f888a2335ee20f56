/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json.h - writing JSON values.  Log text is arbitrary bytes: valid UTF-8
 * passes through, every other byte becomes \u00XX (its Latin-1 reading),
 * so the output is always valid JSON.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_JSON_H
#define MTC_JSON_H

#include "base/util.h"

#include <stdio.h>

void json_string(FILE *out, struct slice s);
void json_cstring(FILE *out, const char *s); /* NULL -> null */
void json_hex(FILE *out, uint64_t v);        /* "0x..." as a string */

#endif
