/* SPDX-License-Identifier: GPL-3.0-or-later */
/* noverdict.h - the loss records of a log without reachability verdicts
 * (glibc's own tracer, MEMLEAK_CONFIG=reach=0 or classic, a process
 * killed before its exit scan), for the outputs that report loss records
 * (valgrind's text and XML, SARIF, JUnit, Code Quality): every block not
 * freed at the end is a leak of the kind "not freed (no reachability
 * verdict)".  A libmtrace log has them already, one per allocation stack
 * (findings.h); a glibc-style log has no stacks, only each block's
 * caller, and gets one record per caller (largest first), its one frame
 * the caller as the text report prints it (FILE:LINE, or the module and
 * function glibc wrote), fingerprinted as any record (fingerprint.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_NOVERDICT_H
#define MTC_NOVERDICT_H

#include "findings/findings.h"

struct nv_records {
    struct loss_record *r; /* class CLASS_UNKNOWN, classified 0, failing */
    size_t n;
    /* Private: what a glibc-style log's records own. */
    struct view_frames *views;
    char **strings;
    size_t nstrings;
};

/* The records of F, a log reported without verdicts (!f->classified);
 * valid while F is. */
void nv_build(struct nv_records *nv, const struct findings *f);
void nv_destroy(struct nv_records *nv);

/* The words of the kind, "not freed (no reachability verdict)", and its
 * id in the machine-read formats, "not-freed". */
extern const char nv_words[], nv_id[];

#endif
