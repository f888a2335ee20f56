/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xlines.h - the lines of blocks that are not malloc's (doc/format.md,
 * "Other blocks"): "#b", "#x" and "#P" records, formatted into a buffer
 * of XLINE_MAX bytes.  Each returns the line's length, newline included.
 * GPL-3.0-or-later. */
#ifndef MT_XLINES_H
#define MT_XLINES_H
#include <stddef.h>
#include <stdint.h>

#define XLINE_MAX 320
#define XLINE_NAME_MAX 200 /* a pool's name is cut there */

/* "#b KIND 0xPTR 0xSIZE sSID[ POOL]" (POOL 0: none). */
size_t xlines_block(char *out, const char *kind, uintptr_t ptr, uint64_t size,
                    uint32_t sid, uint32_t pool);
/* "#x KIND 0xPTR" */
size_t xlines_end(char *out, const char *kind, uintptr_t ptr);
/* "#P new POOL NAME" (NAME NULL or empty: "-"; control characters
 * become '?') or, NAME unused, "#P destroy POOL". */
size_t xlines_pool(char *out, const char *what, uint32_t pool,
                   const char *name);

#endif
