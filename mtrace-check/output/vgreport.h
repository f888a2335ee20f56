/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgreport.h - mtrace-check's reports in valgrind memcheck's shapes, for
 * the tools that read memcheck (ctest -T memcheck, IDEs, CI plugins) and
 * for mtrace-run (mtrace-run/), which stands in for valgrind:
 *   --valgrind[=quiet|summary]  text on standard output: "==PID==" lines,
 *       loss records with "at"/"by" frames, LEAK SUMMARY;
 *   --xml FILE  memcheck's XML, protocol 4 (valgrind's
 *       docs/internals/xml-output-protocol4.txt), one document for all
 *       the logs checked.
 * The writers read a narrow model of their own (struct vg_process: a
 * process's loss records, with frames), filled from the checker's loss
 * records (classreport.h) by vgcollect.c, so that they do not depend on
 * how the checker computes them.  Several logs (a process tree): each
 * process's report under its own pid, then one summary of them all.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VGREPORT_H
#define MTC_VGREPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

/* Text shapes of --valgrind. */
enum vg_mode {
    VG_OFF,
    VG_FULL,    /* valgrind's default: header, loss records, summaries */
    VG_QUIET,   /* valgrind -q: the loss records only */
    VG_SUMMARY, /* --leak-check=summary: header and summaries only */
};

struct vg_options {
    enum vg_mode mode;
    const char *xml;  /* --xml FILE, or NULL */
    int show_kinds;   /* classes listed as loss records (verdict.h mask) */
    int error_kinds;  /* classes counted as errors (--fail-on) */
    int num_callers;  /* frames per stack */
    int gen_supp;     /* a valgrind suppression after each loss record */
};

struct vg_frame {
    uint64_t ip;
    const char *fn, *obj, *file; /* NULL: unknown; FILE: full path */
    unsigned line;               /* 0: unknown */
};

struct vg_record {
    int cls; /* enum leak_class */
    uint64_t bytes, blocks, indirect;
    int suppressed;
    struct vg_frame *f;
    size_t nf;
    int noverdict; /* a log without verdicts: "not freed", shown as
                      definitely lost with a note (vg_noverdict_note) */
};

struct vg_sum {
    uint64_t bytes, blocks;
};

struct vg_supp_count {
    const char *name;
    uint64_t count;
};

struct vg_process {
    uint64_t pid, ppid;
    const char *program; /* NULL: unknown */
    struct vg_record *rec; /* sorted as valgrind sorts them */
    size_t nrec;
    struct vg_sum sum[5], suppressed; /* sum[enum leak_class] */
    struct vg_supp_count *supp;
    size_t nsupp;
};

/* The text of one process (--valgrind). */
void vg_text_process(FILE *out, const struct vg_process *p,
                     const struct vg_options *o);
/* After the processes of a tree, when there are two or more: their
 * summary, under the first one's pid. */
void vg_text_combined(FILE *out, const struct vg_process *p, size_t n,
                      const struct vg_options *o);
/* The XML document of the processes P[0..N) (the first one's pid). */
void vg_xml(FILE *out, const struct vg_process *p, size_t n,
            const struct vg_options *o);

/* The note after the stack of a NOVERDICT record: valgrind's "auxwhat"
 * (XML) or its indented line (text). */
extern const char vg_noverdict_note[];

/* Whether record R is listed: not suppressed, its class shown. */
int vg_listed(const struct vg_record *r, const struct vg_options *o);
/* Decimal with thousands separators, into BUF (32 bytes). */
const char *vg_commas(uint64_t v, char *buf);
/* memcheck's words for class C: "definitely lost", ...; its XML kind:
 * "Leak_DefinitelyLost", ...; its suppression word: "definite", ... */
const char *vg_words(int cls);
const char *vg_kind(int cls);
const char *vg_supp_word(int cls);

/* One valgrind suppression entry for R; IN_CDATA: inside an XML CDATA
 * section (frames whose name holds "]]>" are left out). */
void vg_write_suppression(FILE *out, const struct vg_record *r, int in_cdata);

#endif
