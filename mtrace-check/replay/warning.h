/* SPDX-License-Identifier: GPL-3.0-or-later */
/* warning.h - what the replay tells as it goes: the four warnings of
 * glibc's Perl checker, handed to a sink (the writers, through
 * output/outputs.c) the moment they are found, so that the text report
 * can print them in the script's order while the log is still being read.
 * Strings are byte slices of the log and of location()'s cache, valid
 * only during the call.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_WARNING_H
#define MTC_WARNING_H

#include "base/util.h"

enum warn_kind {
    WARN_ALLOC_DUPLICATE,      /* "+ ADDR Alloc N duplicate: WAS WHERE"    */
    WARN_FREE_NEVER_ALLOCATED, /* "- ADDR Free N was never alloc'd WHERE"  */
    WARN_REALLOC_NEVER_ALLOCATED,
    WARN_REALLOC_DUPLICATE, /* "+ ADDR Realloc N duplicate: SIZE WAS WHERE" */
};

struct warning {
    enum warn_kind kind;
    uint64_t line;
    struct slice addr;   /* the field as written in the log */
    uint64_t addr_value; /* Perl's hex() of it */
    uint64_t size;       /* realloc duplicate: size already recorded */
    struct slice was;    /* location() of the first allocation */
    struct slice where;  /* location() of this event, or raw WHERE */
};

/* TRACE: the log has shown a trace line (engine_traced); until then a
 * sink holds what it is told, and drops it if the log is no trace. */
struct warning_sink {
    void (*emit)(void *ctx, const struct warning *w, int trace);
    void *ctx;
};

#endif
