/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.c - see options.h.  valgrind's kind lists ("definite,possible",
 * "all", "none") are mtrace-check's class lists already.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MTR_VERSION
#define MTR_VERSION "0.1.0"
#endif

static void help(void)
{
    fputs(
        "Usage: mtrace-run [OPTION]... [--] PROGRAM [ARG]...\n"
        "Run PROGRAM under libmtrace from its start, following its child\n"
        "processes, and report the memory it leaked as valgrind's memcheck\n"
        "does (==PID== lines on standard error, or memcheck's XML), at a\n"
        "fraction of valgrind's cost.  Exits with PROGRAM's status, or with\n"
        "--error-exitcode's when leaks of the error kinds were found.\n"
        "\n"
        "valgrind's options (so that a tool set up for valgrind runs it):\n"
        "  -q, --quiet                 only the loss records\n"
        "  --tool=memcheck             the only tool there is\n"
        "  --leak-check=no|summary|yes|full  loss records with yes or full\n"
        "                              (default: summary)\n"
        "  --show-leak-kinds=KINDS     definite,indirect,possible,reachable,\n"
        "                              all, none (default: definite,possible)\n"
        "  --show-reachable=yes|no     yes: --show-leak-kinds=all\n"
        "  --errors-for-leak-kinds=KINDS  leaks that count as errors\n"
        "                              (default: definite,possible)\n"
        "  --num-callers=N             frames per stack (default 12)\n"
        "  --error-exitcode=N          exit with N when errors were found\n"
        "  --log-file=FILE             the report to FILE (%p: the pid of\n"
        "                              each process, %q{VAR}: $VAR)\n"
        "  --log-fd=N                  the report to descriptor N (default 2)\n"
        "  --xml=yes --xml-file=FILE   memcheck's XML, protocol 4 (also\n"
        "                              --xml-fd=N)\n"
        "  --suppressions=FILE         valgrind's or LeakSanitizer's syntax\n"
        "  --trace-children=yes|no     trace and report the programs started\n"
        "                              by exec (default: yes; no: they run\n"
        "                              untraced; fork children always)\n"
        "  --gen-suppressions=all|yes|no  a suppression after each record\n"
        "Other memcheck options (--track-origins=, -v, ...) are accepted\n"
        "and change nothing.\n"
        "\n"
        "mtrace-run's own:\n"
        "  --fail-on=KINDS             the same as --errors-for-leak-kinds\n"
        "  --mtrace-dir=DIR            write the logs into DIR and keep them\n"
        "                              (default: a temporary directory)\n"
        "  --mtrace-config=OPTS        more MEMLEAK_CONFIG options\n"
        "  --html=FILE                 also write one HTML page for the whole\n"
        "                              run: the processes, their totals and\n"
        "                              each one's report\n"
        "  --help, --version\n",
        stdout);
}

/* memcheck options that change nothing under libmtrace. */
static const char *const ignored[] = {
    "--track-origins=", "--error-limit=", "--demangle=", "--show-below-main=",
    "--read-var-info=", "--read-inline-info=", "--child-silent-after-fork=",
    "--trace-children-skip=", "--trace-children-skip-by-arg=", "--track-fds=",
    "--time-stamp=", "--undef-value-errors=", "--keep-debuginfo=",
    "--leak-resolution=", "--leak-check-heuristics=", "--show-mismatched-frees=",
    "--partial-loads-ok=", "--expensive-definedness-checks=", "--malloc-fill=",
    "--free-fill=", "--smc-check=", "--fair-sched=", "--max-stackframe=",
    "--main-stacksize=", "--num-transtab-sectors=", "--redzone-size=",
    "--freelist-vol=", "--freelist-big-blocks=", "--workaround-gcc296-bugs=",
    "--ignore-ranges=", "--show-error-list=", "--xml-user-comment=",
    "--run-libc-freeres=", "--run-cxx-freeres=", "--sim-hints=",
    "--soname-synonyms=", "--vgdb=", "--vgdb-error=", "--fullpath-after=",
    "--extra-debuginfo-path=", "--allow-mismatched-debuginfo=",
    "--keep-stacktraces=", "--max-threads=", "--show-possibly-lost=",
    "--alignment=", "--trace-malloc=", "--max-stacksize=",
};

static int is_ignored(const char *a)
{
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose") || !strcmp(a, "-s"))
        return 1;
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
        if (strncmp(a, ignored[i], strlen(ignored[i])) == 0)
            return 1;
    return 0;
}

static int bad(const char *a, const char *why)
{
    fprintf(stderr, "mtrace-run: %s: %s\n", a, why);
    fputs("mtrace-run: Use --help for more information.\n", stderr);
    return -1;
}

/* "yes"/"no" into *V; -1 when it is neither. */
static int yes_no(const char *a, const char *v, int *out)
{
    if (strcmp(v, "yes") == 0)
        *out = 1;
    else if (strcmp(v, "no") == 0)
        *out = 0;
    else
        return bad(a, "expected yes or no");
    return 1;
}

static int number(const char *a, const char *v, int lo, int hi, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end || n < lo || n > hi)
        return bad(a, "not a number in range");
    *out = (int)n;
    return 1;
}

static int nonempty(const char *a, const char *v, const char **out)
{
    if (*v == '\0')
        return bad(a, "needs a value");
    *out = v;
    return 1;
}

#define VAL(name) (strncmp(a, name, strlen(name)) == 0 ? a + strlen(name) : NULL)

/* The options about the report.  Returns 1 handled, 0 not one, -1 bad. */
static int report_option(const char *a, struct run_options *o)
{
    const char *v;
    if ((v = VAL("--leak-check="))) {
        if (!strcmp(v, "no"))
            o->leak_check = LC_NO;
        else if (!strcmp(v, "summary"))
            o->leak_check = LC_SUMMARY;
        else if (!strcmp(v, "yes") || !strcmp(v, "full"))
            o->leak_check = LC_FULL;
        else
            return bad(a, "expected no, summary, yes or full");
        return 1;
    }
    if ((v = VAL("--show-leak-kinds=")))
        return nonempty(a, v, &o->show_kinds);
    if ((v = VAL("--show-reachable="))) {
        int yes;
        if (yes_no(a, v, &yes) < 0)
            return -1;
        o->show_kinds = yes ? "all" : "definite,possible";
        return 1;
    }
    if ((v = VAL("--errors-for-leak-kinds=")) || (v = VAL("--fail-on=")))
        return nonempty(a, v, &o->error_kinds);
    if ((v = VAL("--num-callers=")))
        return number(a, v, 1, 500, &o->num_callers);
    if ((v = VAL("--gen-suppressions="))) {
        if (strcmp(v, "all") && strcmp(v, "yes") && strcmp(v, "no"))
            return bad(a, "expected all, yes or no");
        o->gen_supp = strcmp(v, "no") != 0;
        return 1;
    }
    return 0;
}

/* The options about where things go and what runs. */
static int run_option(const char *a, struct run_options *o)
{
    const char *v;
    if ((v = VAL("--tool=")))
        return strcmp(v, "memcheck") == 0
                   ? 1
                   : bad(a, "mtrace-run stands in for memcheck only");
    if ((v = VAL("--error-exitcode=")))
        return number(a, v, 0, 255, &o->error_exitcode);
    if ((v = VAL("--log-file=")))
        return nonempty(a, v, &o->log_file);
    if ((v = VAL("--log-fd=")))
        return number(a, v, 0, 1 << 20, &o->log_fd);
    if ((v = VAL("--xml=")))
        return yes_no(a, v, &o->xml);
    if ((v = VAL("--xml-file=")))
        return nonempty(a, v, &o->xml_file);
    if ((v = VAL("--xml-fd=")))
        return number(a, v, 0, 1 << 20, &o->xml_fd);
    if ((v = VAL("--suppressions="))) {
        if (*v == '\0')
            return bad(a, "needs a file");
        o->supp[o->nsupp++] = v;
        return 1;
    }
    if ((v = VAL("--trace-children=")))
        return yes_no(a, v, &o->trace_children);
    if ((v = VAL("--mtrace-dir=")))
        return nonempty(a, v, &o->mtrace_dir);
    if ((v = VAL("--mtrace-config=")))
        return nonempty(a, v, &o->mtrace_config);
    if ((v = VAL("--html=")))
        return nonempty(a, v, &o->html);
    return 0;
}

enum run_parse run_parse_options(int argc, char **argv, struct run_options *o)
{
    memset(o, 0, sizeof *o);
    o->leak_check = LC_SUMMARY;
    o->show_kinds = "definite,possible";
    o->error_kinds = "definite,possible";
    o->num_callers = 12;
    o->log_fd = o->xml_fd = -1;
    o->trace_children = 1;
    o->supp = calloc((size_t)argc + 1, sizeof *o->supp);
    if (o->supp == NULL)
        return RUN_USAGE;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help();
            return RUN_EXIT_OK;
        }
        if (strcmp(a, "--version") == 0) {
            printf("mtrace-run (libmtrace) %s\n", MTR_VERSION);
            return RUN_EXIT_OK;
        }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        int r = report_option(a, o);
        if (r == 0)
            r = run_option(a, o);
        if (r == 0 && is_ignored(a))
            r = 1;
        if (r == 0)
            r = bad(a, "unknown option");
        if (r < 0)
            return RUN_USAGE;
    }
    if (i >= argc) {
        bad("PROGRAM", "missing: mtrace-run [OPTION]... [--] PROGRAM [ARG]...");
        return RUN_USAGE;
    }
    if (o->xml && !o->xml_file && o->xml_fd < 0) {
        bad("--xml=yes", "no XML output destination: give --xml-file=FILE "
                         "or --xml-fd=N");
        return RUN_USAGE;
    }
    o->program = argv + i;
    return RUN_GO;
}
