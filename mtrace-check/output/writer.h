/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer.h - one output format of mtrace-check: the only code that knows
 * that format.  A writer is told the warnings as the replay finds them
 * (streaming: the Perl-identical text prints them in the log's order) and
 * then the findings (findings.h), once, at the end.  outputs.c holds the
 * table of writers and picks them from the options; see README there for
 * adding one.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_WRITER_H
#define MTC_WRITER_H

#include "findings/findings.h"
#include "findings/diff.h"
#include "options/options.h"

#include <stdio.h>

/* The state one writer keeps for one log. */
struct writer {
    const struct writer_ops *ops;
    const struct options *opt;
    FILE *out;       /* standard output, or where held warnings wait */
    const char *log; /* the log, as named on the command line */
    const char *binary;
    int begun;       /* JSON: the object's head is written */
    uint64_t nwarnings;
};

struct writer_ops {
    const char *name;
    /* Streamed during the replay; may be NULL (the format has none).
     * W->out is a memory stream while the log has not shown it is a
     * trace (outputs.c prints or drops what it holds). */
    void (*warning)(struct writer *w, const struct warning *wn);
    /* At the end: everything.  Returns 0, or -1 (message printed). */
    int (*findings)(struct writer *w, const struct findings *f);
    /* One of several logs could not be checked: its entry in the list
     * (W is NULL; NULL: the message on standard error is all). */
    void (*refused)(struct writer *w, const char *log, const char *why);
    /* Several logs on standard output: before each (I of N), and around
     * the whole list; NULL: nothing. */
    void (*list_begin)(const struct options *o, const char *binary, int n);
    void (*list_item)(const struct options *o, const char *log, int i,
                      int n);
    void (*list_end)(const struct options *o, int n);
    /* --diff: two logs compared (findings/diff.h), instead of findings();
     * NULL: the format has no such mode.  Returns 0, or -1 (told). */
    int (*diff)(struct writer *w, const struct findings_diff *d);
};

/* The writers (text.c, jsonout.c, folded.c, html.c, pprofout.c; vgcollect.c:
 * valgrind memcheck's text and XML). */
extern const struct writer_ops text_writer, json_writer, folded_writer,
    html_writer, pprof_writer, valgrind_writer, vgxml_writer;
/* The CI files and baselines (cireport.h): every log's loss records
 * kept, the files written after the last log. */
extern const struct writer_ops ci_writer;

/* Shared by the text and JSON writers: one frame line of the text report
 * ("    #K FUNC at FILE:LINE (...)"), and a frame list as a JSON array. */
void report_text_frame(FILE *out, size_t k, const struct view_frame *v);
void report_json_frames(FILE *out, const struct view_frames *f);
/* One loss record of F as the JSON object of "loss_records" (doc/json.md),
 * without a separator before it (jsonout.c). */
void report_json_record(FILE *out, const struct findings *f,
                        const struct loss_record *r);
/* The same without its closing brace, for members to follow. */
void report_json_record_open(FILE *out, const struct findings *f,
                             const struct loss_record *r);
/* What a definitely lost record's block holds (blockout.c): the text
 * lines under its frames, the JSON members "preview" and "type" (nothing
 * when the log has no "#w" record for it). */
void report_text_block(FILE *out, const struct loss_record *r);
/* A loss record's frame lines (or "(no stack recorded)", "(empty stack)")
 * and its block's lines, as the text report shows them (text.c). */
void report_text_stack(FILE *out, const struct loss_record *r);
void report_json_block(FILE *out, const struct loss_record *r);
/* The writers' --diff modes (difftext.c, diffjson.c, htmldiff.c). */
int text_diff(struct writer *w, const struct findings_diff *d);
int json_diff(struct writer *w, const struct findings_diff *d);
int html_diff(struct writer *w, const struct findings_diff *d);
/* The sentence the text report ends with for an extended log (nothing
 * for a log that ended by exit or muntrace); the HTML page shows it too.
 * HELD_*: the blocks still live at the end.  A death by signal whose
 * verdicts libmtrace wrote as the process died says so. */
void logend_text(FILE *out, const struct findings *f, uint64_t held_blocks,
                 uint64_t held_bytes);

#endif
