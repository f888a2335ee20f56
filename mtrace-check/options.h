/* options.h - command line of mtrace-check:
 *   mtrace-check [--json] [--help] [--version] [--] [BINARY] LOG...
 * LOG "-" is standard input.  Which operand is BINARY is decided by
 * operands.h, which looks at the files.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_OPTIONS_H
#define MTC_OPTIONS_H

struct options {
    int json;
    char **operands; /* BINARY and LOG operands, in order */
    int noperands;   /* at least 1 */
};

enum parse_result { OPT_RUN, OPT_EXIT_OK, OPT_USAGE_ERROR };

enum parse_result parse_options(int argc, char **argv, struct options *o);

#endif
