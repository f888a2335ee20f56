/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.c - command-line parsing, --help and --version (see options.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "options.h"
#include "diag.h"
#include "folded.h"
#include "util.h"
#include "verdict.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MTC_VERSION
#define MTC_VERSION "0.1.0"
#endif

static void print_help(void)
{
    printf(
        "Usage: %s [OPTION]... [BINARY] LOG...\n"
        "Report the memory leaks and allocation errors recorded in LOG, a\n"
        "MALLOC_TRACE log written by glibc's mtrace() or by libmtrace.so\n"
        "(plain, or compressed with zstd or gzip).\n"
        "The report is what glibc's mtrace(1) prints for the same arguments;\n"
        "for logs with call stacks it is followed by the leaks grouped by "
        "stack.\n"
        "A log with libmtrace's reachability verdicts is reported by class\n"
        "instead (definitely, indirectly, possibly lost, still reachable).\n"
        "LOG \"-\" reads standard input.  BINARY is the traced program, used "
        "to\n"
        "turn caller addresses into source lines.  With several operands the\n"
        "first is BINARY unless its first line is \"= Start\" (a log); each\n"
        "log is checked on its own, under a \"==> LOG <==\" header.\n"
        "\n"
        "      --json     print one JSON object instead of text\n"
        "      --html FILE  also write an HTML report to FILE: summary, live\n"
        "                 bytes over time, flame graphs, top stacks\n"
        "      --folded[=leaks|peak|all]  print folded stacks (flamegraph.pl,\n"
        "                 inferno, speedscope) instead of the report, weighed\n"
        "                 in bytes: leaked (default), live at the peak, or\n"
        "                 allocated in all\n"
        "  -q, --quiet    no progress line on a terminal\n"
        "      --show-reachable  list still reachable blocks too (logs with\n"
        "                 reachability verdicts)\n"
        "      --fail-on=CLASSES  exit with status 1 when leaks of these\n"
        "                 classes are found: a comma-separated list of\n"
        "                 definite, indirect, possible, reachable, unknown,\n"
        "                 all, none (default: definite)\n"
        "      --suppressions FILE  leak suppressions in LeakSanitizer's\n"
        "                 syntax (leak:PATTERN lines); may be repeated\n"
        "      --sarif FILE  also write the leaks as SARIF 2.1.0 (GitHub code\n"
        "                 scanning)\n"
        "      --junit FILE  also write them as JUnit XML (Jenkins, most CI)\n"
        "      --codequality FILE  also write them as GitLab Code Quality JSON\n"
        "      --baseline FILE  loss records whose fingerprint is in FILE are\n"
        "                 marked and do not count toward the exit status\n"
        "      --write-baseline FILE  write the fingerprints of the leaks found\n"
        "                 to FILE, for --baseline\n"
        "      --gen-suppressions[=FILE]  one suppression per leak, printed\n"
        "                 under the report or written to FILE, for\n"
        "                 --suppressions\n"
        "      --help     print this help, then exit\n"
        "      --version  print version number, then exit\n"
        "\n"
        "Exit status: 0 no leaks, 1 leaks, 2 usage or input error (the worst\n"
        "of all logs).  For a log with reachability verdicts, 1 means leaks\n"
        "of a --fail-on class.  A file that is not an mtrace log (empty, no\n"
        "\"= Start\" line nor allocation record, the program given alone) and\n"
        "a BINARY that does not exist are input errors.\n",
        progname);
}

static void print_version(void)
{
    printf(
        "mtrace-check (libmtrace) %s\n"
        "License GPL-3.0-or-later: <https://gnu.org/licenses/gpl.html>.\n"
        "This is free software: you are free to change and redistribute it.\n"
        "There is NO WARRANTY, to the extent permitted by law.\n",
        MTC_VERSION);
}

/* An option given an empty value ("--fail-on=", "--html ''"): told,
 * never taken as a default.  Returns 1 then. */
static int empty_value(const char *option, const char *value)
{
    if (*value != '\0')
        return 0;
    diag_usage("%s needs a value (it was given an empty one, or none)",
               option);
    return 1;
}

/* The options that name a file to write or read, "--NAME FILE" or
 * "--NAME=FILE" (cireport.h). */
static const char **file_option(struct options *o, const char *a,
                                size_t *len)
{
    static const struct {
        const char *name;
        size_t at;
    } names[] = {
        { "--sarif", offsetof(struct options, sarif) },
        { "--junit", offsetof(struct options, junit) },
        { "--codequality", offsetof(struct options, codequality) },
        { "--baseline", offsetof(struct options, baseline) },
        { "--write-baseline", offsetof(struct options, write_baseline) },
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t n = strlen(names[k].name);
        if (strncmp(a, names[k].name, n) == 0 && (a[n] == '\0' || a[n] == '=')) {
            *len = n;
            return (const char **)((char *)o + names[k].at);
        }
    }
    return NULL;
}

/* A file option at ARGV[*I]: its value taken.  Returns 0, 1 when A is
 * no such option, -1 for a usage error (told). */
static int parse_file_option(struct options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    size_t n;
    const char **dest = file_option(o, a, &n);
    if (dest == NULL)
        return 1;
    const char *v = a[n] == '=' ? a + n + 1 : *i + 1 < argc ? argv[++*i] : "";
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)n, a);
    if (empty_value(name, v))
        return -1;
    *dest = v;
    return 0;
}

/* --gen-suppressions[=FILE]. */
static int parse_gen_supp(struct options *o, const char *a)
{
    const size_t n = sizeof "--gen-suppressions" - 1;
    if (a[n] == '=' && empty_value("--gen-suppressions", a + n + 1))
        return -1;
    o->gen_supp = 1;
    o->gen_supp_file = a[n] == '=' ? a + n + 1 : NULL;
    return 0;
}

/* Combinations that cannot work, told.  Returns 0 or -1. */
static int check_combinations(const struct options *o)
{
    if (o->folded && o->json) {
        diag_usage("--folded and --json both print on standard output: "
                   "choose one");
        return -1;
    }
    if (o->gen_supp && !o->gen_supp_file && (o->json || o->folded)) {
        diag_usage("--gen-suppressions prints under the text report: with "
                   "--json or --folded, give it a file "
                   "(--gen-suppressions=FILE)");
        return -1;
    }
    return 0;
}

enum parse_result parse_options(int argc, char **argv, struct options *o)
{
    int only_args = 0, file;

    memset(o, 0, sizeof *o);
    o->operands = xmalloc((size_t)argc * sizeof *o->operands);
    o->fail_on = 1 << CLASS_DEFINITE;
    o->supp = xcalloc((size_t)argc, sizeof *o->supp);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || strcmp(a, "-") == 0) {
            o->operands[o->noperands++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            only_args = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--html") == 0 || strncmp(a, "--html=", 7) == 0) {
            if (a[6] == '=')
                o->html = a + 7;
            else if (i + 1 < argc)
                o->html = argv[++i];
            if (empty_value("--html", o->html ? o->html : ""))
                return OPT_USAGE_ERROR;
        } else if (strcmp(a, "--folded") == 0 ||
                   strncmp(a, "--folded=", 9) == 0) {
            enum folded_view v = FOLDED_LEAKS;
            if (a[8] == '=' && empty_value("--folded", a + 9))
                return OPT_USAGE_ERROR;
            if (a[8] == '=' && folded_parse_view(a + 9, &v) != 0) {
                diag_usage("--folded: '%s' is not leaks, peak or all", a + 9);
                return OPT_USAGE_ERROR;
            }
            o->folded = 1;
            o->folded_view = (int)v;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "--show-reachable") == 0 ||
                   strcmp(a, "--show-reachable=yes") == 0) {
            o->show_reachable = 1;
        } else if (strcmp(a, "--show-reachable=no") == 0) {
            o->show_reachable = 0;
        } else if (strncmp(a, "--fail-on=", 10) == 0) {
            if (empty_value("--fail-on", a + 10))
                return OPT_USAGE_ERROR;
            o->fail_on = class_mask_parse(a + 10);
            if (o->fail_on < 0) {
                fprintf(stderr, "%s: --fail-on: unknown class in '%s'\n",
                        progname, a + 10);
                return OPT_USAGE_ERROR;
            }
        } else if (strncmp(a, "--suppressions=", 15) == 0) {
            if (empty_value("--suppressions", a + 15))
                return OPT_USAGE_ERROR;
            o->supp[o->nsupp++] = a + 15;
        } else if (strcmp(a, "--suppressions") == 0) {
            if (empty_value("--suppressions", i + 1 < argc ? argv[i + 1] : ""))
                return OPT_USAGE_ERROR;
            o->supp[o->nsupp++] = argv[++i];
        } else if (strcmp(a, "--gen-suppressions") == 0 ||
                   strncmp(a, "--gen-suppressions=", 19) == 0) {
            if (parse_gen_supp(o, a) != 0)
                return OPT_USAGE_ERROR;
        } else if ((file = parse_file_option(o, argc, argv, &i)) <= 0) {
            if (file < 0)
                return OPT_USAGE_ERROR;
        } else if (strcmp(a, "--help") == 0) {
            print_help();
            return OPT_EXIT_OK;
        } else if (strcmp(a, "--version") == 0) {
            print_version();
            return OPT_EXIT_OK;
        } else {
            diag_usage("unrecognized option '%s'", a);
            return OPT_USAGE_ERROR;
        }
    }
    if (o->noperands == 0) {
        diag_usage("missing LOG argument");
        return OPT_USAGE_ERROR;
    }
    if (check_combinations(o) != 0)
        return OPT_USAGE_ERROR;
    return OPT_RUN;
}
