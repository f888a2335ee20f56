/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.h - command line of mtrace-check:
 *   mtrace-check [--json] [--html FILE] [--folded[=VIEW]] [--quiet]
 *                [--show-reachable] [--fail-on=CLASSES]
 *                [--suppressions FILE]... [--sarif FILE] [--junit FILE]
 *                [--codequality FILE] [--baseline FILE]
 *                [--write-baseline FILE] [--gen-suppressions[=FILE]]
 *                [--help] [--version] [--]
 *                [BINARY] LOG...
 * LOG "-" is standard input.  Which operand is BINARY is decided by
 * operands.h, which looks at the files.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_OPTIONS_H
#define MTC_OPTIONS_H

struct options {
    int json;
    const char *html; /* --html FILE: also write the HTML report there */
    int folded;       /* --folded: folded stacks instead of the report */
    int folded_view;  /* enum folded_view (folded.h) */
    int quiet;        /* --quiet: no progress line */
    char **operands;  /* BINARY and LOG operands, in order */
    int noperands;    /* at least 1 */
    int show_reachable;
    int fail_on;       /* classes (verdict.h) that make status 1 */
    const char **supp; /* --suppressions files                  */
    int nsupp;
    /* CI outputs and baselines (cireport.h), each a file or NULL. */
    const char *sarif, *junit, *codequality;
    const char *baseline, *write_baseline;
    int gen_supp;              /* --gen-suppressions */
    const char *gen_supp_file; /* --gen-suppressions=FILE */
    /* Set by main.c for the log being checked (outputs.c reads them). */
    const char *binary; /* NULL when not given */
    const char *log;
};

enum parse_result { OPT_RUN, OPT_EXIT_OK, OPT_USAGE_ERROR };

enum parse_result parse_options(int argc, char **argv, struct options *o);

#endif
