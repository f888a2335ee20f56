/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pprof.h - mtrace-check --pprof FILE: the allocations, the memory in use
 * at the end and the leaks as a heap profile in pprof's format (a gzipped
 * profile.proto message), which go tool pprof, Pyroscope, Parca and
 * Grafana read.  Every sample carries six values, in this order:
 *     alloc_objects, alloc_space     every allocation of the log
 *     inuse_objects, inuse_space     blocks still live at the end
 *     leaked_objects, leaked_space   the leaks (the default view)
 * Each stack is a list of locations (one per return address, with its
 * inlined calls as lines), each in the mapping of its module, with the
 * function names, files and lines the text report shows.
 *
 * Two parts: pprof.c builds and writes a profile from samples given by
 * stack (it knows the format, not the findings); pprofout.c, the writer
 * of --pprof (writer.h), says what the samples of a log's findings are.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_PPROF_H
#define MTC_PPROF_H

#include "read/records.h"

#include <stdint.h>

enum pprof_value {
    PPROF_ALLOC_OBJECTS,
    PPROF_ALLOC_SPACE,
    PPROF_INUSE_OBJECTS,
    PPROF_INUSE_SPACE,
    PPROF_LEAKED_OBJECTS,
    PPROF_LEAKED_SPACE,
    PPROF_NVALUES
};

/* The sample type pprof shows unless told otherwise. */
#define PPROF_DEFAULT_TYPE "leaked_space"

struct pprof_sample {
    int32_t stack; /* index into the log's stacks; -1: none recorded */
    uint64_t value[PPROF_NVALUES];
    const char *leak_class; /* the label "leak_class", or NULL */
};

struct pprof_profile {
    struct ext_store *ext; /* the stacks and modules the samples name */
    const struct pprof_sample *samples;
    size_t nsamples;
    uint64_t duration_ns; /* from the first to the last "#t"; 0: none */
    uint64_t sample_rate; /* a sampled log's rate (the period); 0: not */
    const char *const *comments; /* free text, NULL-terminated; may be NULL */
};

/* Write P to PATH.  Returns 0, or -1 with a message printed. */
int pprof_write(const char *path, const struct pprof_profile *p);

/* The encoded profile (not compressed) into *OUT (free() it), its length
 * into *LEN: what pprof_write compresses, for the tests. */
void pprof_encode(const struct pprof_profile *p, uint8_t **out, size_t *len);

struct findings;

/* The samples of a log's findings (with the timeline): per stack, what it
 * allocated and holds at the end; the leaks as the report counts them
 * (with reachability verdicts, one sample per definitely, indirectly or
 * possibly lost loss record that no suppression took, labelled with its
 * class; else the blocks live at the end, unless the log ends in exec).
 * A sampled log's values are estimates, every block scaled by its weight
 * (mtrace-sample.h) as in the report.  Returns their number; free()
 * *OUT. */
size_t pprof_samples(const struct findings *f, struct pprof_sample **out);

#endif
