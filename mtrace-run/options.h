/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.h - mtrace-run's command line:
 *   mtrace-run [OPTION]... [--] PROGRAM [ARG]...
 * The options are valgrind memcheck's that tools pass (ctest -T memcheck,
 * IDEs, CI plugins): -q, --tool=memcheck, --leak-check=, --show-leak-kinds=,
 * --show-reachable=, --errors-for-leak-kinds=, --num-callers=,
 * --error-exitcode=, --log-file=, --log-fd=, --xml=, --xml-file=,
 * --xml-fd=, --suppressions=, --trace-children=, --gen-suppressions=; a
 * list of memcheck's options that change nothing here is accepted and
 * ignored; and mtrace-run's own --mtrace-dir=DIR (keep the logs there),
 * --mtrace-config=OPTS (more MEMLEAK_CONFIG), --fail-on= and --html=FILE
 * (the run's HTML page).  The first
 * word that is not an option is PROGRAM, as with valgrind.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTR_OPTIONS_H
#define MTR_OPTIONS_H

enum leak_check { LC_NO, LC_SUMMARY, LC_FULL };

struct run_options {
    int quiet;
    enum leak_check leak_check;
    const char *show_kinds;  /* mtrace-check's class list */
    const char *error_kinds; /* likewise */
    int num_callers;
    int error_exitcode; /* 0: the program's status */
    const char *log_file;
    int log_fd; /* -1: none given */
    int xml;
    const char *xml_file;
    int xml_fd; /* -1 */
    const char **supp;
    int nsupp;
    int trace_children;
    int gen_supp;
    const char *mtrace_dir;    /* NULL: a temporary directory */
    const char *mtrace_config; /* NULL: none */
    char **program;            /* PROGRAM [ARG]..., NULL-terminated */
    const char *html;          /* --html=FILE: the run's page, or NULL */
};

enum run_parse { RUN_GO, RUN_EXIT_OK, RUN_USAGE };

/* Parses ARGV into O; messages on standard error. */
enum run_parse run_parse_options(int argc, char **argv, struct run_options *o);

#endif
