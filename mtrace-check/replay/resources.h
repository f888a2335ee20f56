/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resources.h - the "#r" records of a log (doc/format.md, "Resources"):
 * resources other than memory, acquired and released by kind and id
 * (memleak.h's memleak_resource_acquire/release, descriptors with
 * MEMLEAK_CONFIG=fds=1).  The engine hands every "#r" record here in log
 * order (records are read in order by the serial and the parallel
 * replay alike); what is held at the end, and the releases of resources
 * never acquired, are read by findings/resfind.h.
 *
 * Memory follows the distinct (kind, id) pairs of the log: an entry is
 * kept once made, marked held or not.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_RESOURCES_H
#define MTC_RESOURCES_H

#include "base/maps.h"
#include "read/records.h"

struct res_entry {
    uint32_t kind;   /* index into res_table.kinds */
    uint64_t id;
    int held;        /* acquired and not released since */
    int32_t stack;   /* the acquiring stack's index, -1: unknown */
    uint64_t line;   /* of the acquire */
};

enum res_warn_kind {
    RES_RELEASE_UNKNOWN, /* "- KIND ID Release N was never acquired"    */
    RES_ACQUIRE_DUPLICATE, /* "+ KIND ID Acquire N duplicate"          */
};

struct res_warning {
    enum res_warn_kind what;
    uint32_t kind;
    uint64_t id;
    uint64_t line;
    int32_t stack; /* the stack of this record, -1: unknown */
};

struct res_table {
    char **kinds; /* distinct kinds, in order of first sight */
    size_t nkinds;
    struct strmap kind_index; /* kind -> index + 1 */
    struct res_entry *entries;
    size_t nentries, cap_entries;
    struct strmap entry_index; /* kind index and id (bytes) -> index + 1 */
    struct res_warning *warnings;
    size_t nwarnings, cap_warnings;
    uint64_t records, bad_records;
};

void res_init(struct res_table *t);
void res_destroy(struct res_table *t);
/* A "#r" record at LINE (F: its NF fields); a malformed one counts in
 * bad_records and changes nothing.  X resolves its stack field. */
void res_record(struct res_table *t, struct ext_store *x, const struct slice *f,
                size_t nf, uint64_t line);

#endif
