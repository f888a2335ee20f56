/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cireport.h - the outputs for CI systems: SARIF 2.1.0 (--sarif, GitHub
 * code scanning), JUnit XML (--junit, Jenkins and most CI), GitLab Code
 * Quality JSON (--codequality), a baseline of fingerprints
 * (--write-baseline) and generated suppressions (--gen-suppressions).
 *
 * ci_writer (writer.h, a row of outputs.c's table) copies each log's
 * loss records out of its findings (struct ci_record: class, sizes,
 * frames, fingerprint, baseline, whether it fails the run), so every log
 * of a run goes into one file, written when all are checked.  The
 * format writers (sarif.c, junit.c, codequality.c, gensupp.c) take a
 * struct ci_report and a stream, nothing else.  doc/ci.md describes the
 * files.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_CIREPORT_H
#define MTC_CIREPORT_H

#include "findings/fingerprint.h"
#include "options/options.h"
#include "symbolize/stackview.h"
#include "replay/verdict.h"

#include <stdint.h>
#include <stdio.h>

struct baseline;

struct ci_record {
    enum leak_class cls;
    uint64_t bytes, blocks, indirect;
    struct view_frames frames; /* a copy (the strings live on) */
    int has_stack;             /* 0: no stack recorded */
    char fp[FP_LEN];
    int baseline;        /* in the --baseline file */
    int failing;         /* counts toward the exit status */
    char *suppressed_by; /* a suppression took it: not reported */
    char *pattern;       /* generated suppression (gensupp.c), or NULL */
    size_t shared;       /* other loss records the pattern matches too */
    int noverdict;       /* a log without verdicts: the kind "not freed
                            (no reachability verdict)", CLS unknown */
    char *resource; /* a resource group's kind (cires.c; BLOCKS: how many
                       held), or NULL for a loss record */
};

struct ci_log {
    char *log;
    struct ci_record *r;
    size_t n;
    struct ci_record *res; /* resources not released (cires.c) */
    size_t nres;
};

struct ci_report {
    const char *binary; /* NULL: not given */
    int baseline;       /* --baseline was given */
    struct ci_log *logs;
    size_t nlogs;
};

/* Whether record R is a leak the CI files report: a lost class or a
 * --fail-on one, or not freed in a log without verdicts; not suppressed. */
int ci_reported(const struct ci_record *r);

/* Whether OPT asks for any of these outputs (or a baseline). */
int ci_wanted(const struct options *opt);
/* Once, before the first log: loads --baseline.  Returns 0, or -1 after
 * saying why. */
int ci_begin(const struct options *opt);
/* The --baseline file's fingerprints, for the class views; NULL without
 * one. */
const struct baseline *ci_baseline(void);
/* The writer (ci_writer, writer.h) keeps each log's loss records; it
 * prints the generated suppressions under the text report when asked to.
 * A log without verdicts gives records of the kind "not freed (no
 * reachability verdict)" (noverdict.h); baselines and generated
 * suppressions refuse it (told; status 2). */
/* After the last log: writes the files.  Returns 0, or -1 when one could
 * not be written (told). */
int ci_end(void);

/* A source path as CI systems want it: relative to the working directory
 * (the checkout, in CI) when it is below it, else as it is. */
const char *ci_relpath(const char *file);

/* The writers; each returns 0, or -1 on a write error. */
int sarif_write(FILE *out, const struct ci_report *r);
int junit_write(FILE *out, const struct ci_report *r);
int codequality_write(FILE *out, const struct ci_report *r);
/* gensupp.c: patterns for a log's leaks, then the suppression file. */
void gensupp_assign(struct ci_log *l);
int gensupp_write(FILE *out, const struct ci_log *logs, size_t n);

#endif
