/* SPDX-License-Identifier: GPL-3.0-or-later */
/* records.h - the extension records of doc/format.md ("#v", "#p", "#m",
 * "#u", "#f", "#s") and what they describe: the modules of the traced
 * process, the names dladdr() gave to frames, and the distinct call stacks
 * that events refer to with a trailing "s<ID>" field.
 *
 * Malformed records are counted and skipped (never fatal): the Perl
 * checker ignores these lines entirely, so nothing in them may stop the
 * classic part of the report.  References to ids never defined are kept as
 * "unknown" and counted.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RECORDS_H
#define MTC_RECORDS_H

#include "base/maps.h"

struct objfile;

struct module {
    uint64_t mid;
    uint64_t base; /* load bias, informational */
    char *path;
    char build_id[129]; /* lowercase hex, "" when the log had "-" */
    int unloaded;
    struct u64map names; /* offset -> struct frame_name * ("#f") */
    struct objfile *obj; /* opened lazily by the stack report */
    int obj_resolved;
    int prefetched; /* handed to ext_store.prefetch */
};

struct frame_name {
    uint64_t symoff;
    char *name;
};

struct frame_ref {
    int32_t module; /* index into modules, or FRAME_* below */
    uint64_t off;   /* offset in the module, or absolute address */
};

/* frame_ref.module for frames without a module record. */
enum {
    FRAME_NO_MODULE = -1, /* "-:0xADDR": outside every module */
    FRAME_UNKNOWN_MODULE = -2
}; /* an id no "#m" record defined */

struct stack {
    uint64_t sid;
    uint32_t nframes;
    struct frame_ref *frames;
};

struct ext_store {
    int extended; /* a "#v" record was seen */
    uint64_t version;
    uint64_t sample_rate; /* "#v ... sample=RATE": a sampled log; 0: not */
    char *program;        /* "#p" */
    uint64_t pid, ppid;   /* "#v ... pid=N ppid=N"; 0: not given */
    char *untraced; /* "#v ... untraced=WHY": nothing was traced; NULL: no */
    struct module *mods;
    size_t nmods, cap_mods;
    struct u64map mid_index; /* mid -> index + 1 */
    struct stack *stacks;
    size_t nstacks, cap_stacks;
    struct u64map sid_index; /* sid -> index + 1 */
    struct u64map abs_names; /* address -> struct frame_name * ("#f -") */
    uint64_t bad_records;
    uint64_t dangling_refs;
    /* Called once per module with the first frame a stack record has in
	 * it (the symbolizer may start reading its debug information); NULL:
	 * not wanted. */
    void (*prefetch)(const char *path, uint64_t vma);
    uint64_t last_sid;  /* the last "s<ID>" resolved: events come in */
    int32_t last_stack; /* runs from the same call site; -1: none */
    int live_log; /* "#v ... log=live" (doc/format.md, "Live logs") */
};

void ext_init(struct ext_store *x);
void ext_destroy(struct ext_store *x);

/* Handle a line whose first field starts with '#'.  FIELDS are its
 * whitespace-split fields (up to NF); LINE is the whole raw line, needed
 * for the path and name records that run to the end of the line. */
void ext_record(struct ext_store *x, const char *line, size_t len,
                const struct slice *fields, size_t nf);

/* Index of the stack named by an event's "s<ID>" field, or -1. */
int32_t ext_stack_ref(struct ext_store *x, struct slice field);

const struct frame_name *ext_frame_name(struct module *m, uint64_t off);
/* The "#f -" name of a frame outside every module, or NULL. */
const struct frame_name *ext_absolute_name(struct ext_store *x, uint64_t addr);

#endif
