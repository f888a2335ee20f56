/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.h - the command line of mtrace-check:
 *   mtrace-check [OPTION]... [--] [BINARY] LOG...
 * LOG "-" is standard input.  Which operand is BINARY is decided by
 * cli/operands.h, which looks at the files.
 *
 * Every option is one row of MTC_OPTIONS below: the field of struct
 * options, the parser, --help, and the SYNOPSIS and OPTIONS of
 * doc/mtrace-check.1 (written by `make docs`, checked by the checker's
 * unit suite) are all made from it.  A new option is one row (and, for
 * the VALUE and OPTIONAL kinds, a setter in options.c).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_OPTIONS_H
#define MTC_OPTIONS_H

/* Kinds, and what the option's field is:
 *   FLAG      --NAME (or -S)                      int, set to 1
 *   FILE      --NAME FILE or --NAME=FILE          const char *
 *   FILES     the same, repeatable                const char **NAME, nNAME
 *   VALUE     --NAME=VALUE                        int, set_NAME() parses
 *   OPTIONAL  --NAME or --NAME=VALUE              int, set_NAME(NULL or V)
 *   EXIT      --NAME: set_NAME() prints, the run ends with status 0
 * An empty FILE or VALUE is refused for every kind.  A setter returns NULL,
 * or what the value should have been ("leaks, peak or all"), for the one
 * message: "--NAME: 'VALUE' is not ...".  A setter may fill fields of its
 * own, declared after the table (folded_view: --folded's VALUE).
 *
 * X(FIELD, NAME, SHORT, KIND, ARG, HELP, MORE): ARG names the value in the
 * docs ("FILE", "CLASSES"; "leaks|peak|all" lists the words); HELP is the
 * --help text; MORE follows it in the man page only.  Plain text: the man
 * page generator escapes it. */
#define MTC_OPTIONS(X)                                                         \
    X(json, "json", 0, FLAG, "", "print one JSON object instead of text",     \
      "The schema is below and in doc/json.md.")                               \
    X(html, "html", 0, FILE, "FILE",                                           \
      "also write an HTML report to FILE: summary, live bytes over time, "     \
      "flame graphs, top stacks",                                              \
      "The text or JSON report still goes to standard output; with several " \
      "logs, one page for the whole run; see HTML REPORT.")                    \
    X(pprof, "pprof", 0, FILE, "FILE",                                         \
      "also write a heap profile to FILE in pprof's format (go tool pprof, "   \
      "Pyroscope, Parca, Grafana): allocated, in use at the end, and leaked "  \
      "(default)",                                                             \
      "The text or JSON report still goes to standard output; see HEAP "       \
      "PROFILE.")                                                              \
    X(folded, "folded", 0, OPTIONAL, "leaks|peak|all",                         \
      "print folded stacks (flamegraph.pl, inferno, speedscope) instead of "   \
      "the report, weighed in bytes: leaked (default), live at the peak, or "  \
      "allocated in all",                                                      \
      "See FOLDED STACKS.  Cannot be combined with --json.")                   \
    X(diff, "diff", 0, FLAG, "",                                               \
      "compare two logs, [BINARY] OLD NEW: the loss records new in NEW, "      \
      "gone since OLD, and grown (more bytes or blocks), per class",          \
      "Records are matched by class and fingerprint (function and file "      \
      "names, never addresses: two runs match whatever ASLR did).  The exit " \
      "status is 1 when NEW has new leaks of the --fail-on classes, else 0; " \
      "--json gives the arrays new, gone and grown, --html a differential "    \
      "flame graph.  See COMPARING TWO RUNS.")                                 \
    X(quiet, "quiet", 'q', FLAG, "", "no progress line on a terminal",         \
      "Without it, a check that runs for more than a second shows one on "     \
      "standard error (bytes read of the log's size, rate, time left), but "   \
      "only when standard error is a terminal.")                               \
    X(show_reachable, "show-reachable", 0, OPTIONAL, "yes|no",                 \
      "list still reachable blocks too (logs with reachability verdicts)",     \
      "One loss record per stack.")                                            \
    X(fail_on, "fail-on", 0, VALUE, "CLASSES",                                 \
      "exit with status 1 when leaks of these classes are found: a "           \
      "comma-separated list of definite, indirect, possible, reachable, "      \
      "unknown (not classified), all, none (default: definite)",              \
      "Only for logs with verdicts (see LEAK CLASSES).")                       \
    X(supp, "suppressions", 0, FILES, "FILE",                                  \
      "leak suppressions in LeakSanitizer's syntax (leak:PATTERN lines) or "   \
      "valgrind's (Memcheck:Leak entries); may be repeated",                   \
      "See SUPPRESSIONS.")                                                     \
    X(valgrind, "valgrind", 0, OPTIONAL, "full|quiet|summary",                 \
      "print the report in valgrind memcheck's text shape instead (==PID== "   \
      "lines, loss records, LEAK SUMMARY); quiet: the loss records only, as "  \
      "valgrind -q; summary: the summaries only",                             \
      "For the tools that read memcheck's text (ctest -T memcheck, IDEs, CI "  \
      "plugins) and for mtrace-run(1).  PID is the traced process's (the "     \
      "log's #v record).  The loss records are valgrind's: one per class "     \
      "and allocation stack, in valgrind's words and order (smallest total "   \
      "first, numbered 'in loss record N of M'), each with its frames "        \
      "('at 0xADDR: FUNCTION (FILE:LINE)', then 'by ...', down to main); "     \
      "then LEAK SUMMARY and ERROR SUMMARY.  Several logs (a process tree): "  \
      "each process under its own pid, then one 'LEAK SUMMARY of N "           \
      "processes' under the first one's.  A log without verdicts lists its "   \
      "blocks as definitely lost.  The exit status is unchanged.")             \
    X(xml, "xml", 0, FILE, "FILE",                                             \
      "also write valgrind memcheck's XML (protocol 4) to FILE",               \
      "One <error> per loss record listed, of kind Leak_DefinitelyLost, "      \
      "Leak_IndirectlyLost, Leak_PossiblyLost or Leak_StillReachable, with "   \
      "<leakedbytes>, <leakedblocks> and the allocation stack; the "           \
      "suppressions used.  Several logs make one document.")                   \
    X(show_leak_kinds, "show-leak-kinds", 0, VALUE, "CLASSES",                 \
      "the classes --valgrind and --xml list as loss records (the list of "    \
      "--fail-on; default: definite,possible, all with --show-reachable)",     \
      "The --fail-on classes are their errors (ERROR SUMMARY).")               \
    X(num_callers, "num-callers", 0, VALUE, "N",                               \
      "frames per stack in --valgrind and --xml (default 12)",                 \
      "valgrind's count, whose first frame is its allocation function: N-1 "   \
      "frames are shown.")                                                     \
    X(valgrind_suppressions, "valgrind-suppressions", 0, FLAG, "",            \
      "after each loss record of --valgrind and --xml, the valgrind "          \
      "suppression that hides it (valgrind's --gen-suppressions=all)",         \
      "libmtrace's stacks start at the allocation function's caller: no "      \
      "fun:malloc line.")                                                      \
    X(sarif, "sarif", 0, FILE, "FILE",                                         \
      "also write the leaks as SARIF 2.1.0 to FILE (GitHub code scanning)",   \
      "One result per leak loss record, at the innermost source line of "     \
      "the program's own code in its allocation stack, with its "              \
      "fingerprint and its whole stack; see CI OUTPUTS.")                      \
    X(junit, "junit", 0, FILE, "FILE",                                         \
      "also write them as JUnit XML to FILE (Jenkins, GitLab, most CI)",      \
      "A test suite per log, a test case per leak loss record, failed when "   \
      "it fails the run; see CI OUTPUTS.")                                     \
    X(codequality, "codequality", 0, FILE, "FILE",                             \
      "also write them as a GitLab Code Quality report to FILE",              \
      "See CI OUTPUTS.")                                                       \
    X(baseline, "baseline", 0, FILE, "FILE",                                   \
      "loss records whose fingerprint is in FILE are marked and do not "       \
      "count toward the exit status",                                          \
      "New ones do, and are named after the LEAK SUMMARY.  A line of FILE "   \
      "that is not a fingerprint is an error (status 2); see CI OUTPUTS.")    \
    X(write_baseline, "write-baseline", 0, FILE, "FILE",                       \
      "write the fingerprints of the leaks found to FILE, for --baseline",    \
      "One a line, with the leak's class, function and file as a comment.")   \
    X(gen_supp, "gen-suppressions", 0, OPTIONAL, "FILE",                       \
      "one suppression per leak loss record, for --suppressions: printed "     \
      "under the text report, or written to FILE",                             \
      "Each names the innermost function of the program's own code in its "   \
      "stack that no other loss record's stack holds, anchored "               \
      "(leak:^NAME$).  With --json or --folded, FILE is needed.")             \
    X(help, "help", 0, EXIT, "", "print this help, then exit",                 \
      "The exit status is 0.")                                                 \
    X(version, "version", 0, EXIT, "", "print version number, then exit",      \
      "The exit status is 0.")

#define MTC_FIELD_FLAG(f) int f;
#define MTC_FIELD_FILE(f) const char *f;
#define MTC_FIELD_FILES(f) const char **f; int n##f;
#define MTC_FIELD_VALUE(f) int f;
#define MTC_FIELD_OPTIONAL(f) int f;
#define MTC_FIELD_EXIT(f)
#define MTC_FIELD(f, name, s, kind, ...) MTC_FIELD_##kind(f)

struct options {
    MTC_OPTIONS(MTC_FIELD)
    int folded_view;  /* enum folded_view, with folded */
    const char *gen_supp_file; /* --gen-suppressions=FILE, with gen_supp */
    char **operands;  /* BINARY and LOG operands, in order */
    int noperands;    /* at least 1 */
    /* Set by main.c for the log being checked (outputs.c reads them). */
    const char *binary; /* NULL when not given */
    const char *log;
};

/* --folded=VIEW: what a stack of the folded output weighs. */
enum folded_view {
    FOLDED_LEAKS, /* bytes still allocated at the end of the log (with
                     verdicts, the lost ones: folded_write_weights) */
    FOLDED_PEAK,  /* bytes it held when the live total peaked */
    FOLDED_ALL,   /* bytes it allocated in all */
};

/* "leaks", "peak" or "all"; returns 0, or -1 for anything else. */
int folded_parse_view(const char *name, enum folded_view *out);

enum option_kind {
    OPTK_FLAG, OPTK_FILE, OPTK_FILES, OPTK_VALUE, OPTK_OPTIONAL, OPTK_EXIT
};

/* A row of the table as the parser and the doc generator see it. */
struct option_row {
    const char *name; /* without the "--" */
    char short_name;  /* 0: none */
    enum option_kind kind;
    const char *arg, *help, *more;
};
extern const struct option_row option_rows[];
extern const int option_count;

enum parse_result { OPT_RUN, OPT_EXIT_OK, OPT_USAGE_ERROR };

enum parse_result parse_options(int argc, char **argv, struct options *o);
/* What parse_options allocated (the operand list, repeated options' lists). */
void options_free(struct options *o);

/* How ROW is written in --help ("-q, --quiet", "--html FILE",
 * "--folded[=leaks|peak|all]"), into BUF. */
void option_synopsis(const struct option_row *row, char *buf, unsigned size);
/* What comes between the name and ARG: " ", "=", "[=" or "". */
const char *option_separator(const struct option_row *row);

#endif
