/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options.c - the command-line parser, --help and --version, all driven
 * by the option table MTC_OPTIONS (options.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "options/options.h"
#include "base/diag.h"
#include "base/util.h"
#include "replay/verdict.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one version of the project: mk/version.mk, given by the Makefile. */
#ifndef MTC_VERSION
#error "MTC_VERSION is given by mtrace-check/Makefile (mk/version.mk)"
#endif

enum { HELP_COLUMN = 17, HELP_WIDTH = 72 };

/* ---- setters of the VALUE, OPTIONAL and EXIT kinds (options.h) ---- */

int folded_parse_view(const char *name, enum folded_view *out)
{
    static const char *const names[] = { "leaks", "peak", "all" };
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (enum folded_view)i;
            return 0;
        }
    return -1;
}

static const char *set_folded(struct options *o, const char *v)
{
    enum folded_view view = FOLDED_LEAKS;
    if (v && folded_parse_view(v, &view) != 0)
        return "leaks, peak or all";
    o->folded = 1;
    o->folded_view = (int)view;
    return NULL;
}

static const char *set_show_reachable(struct options *o, const char *v)
{
    if (v && strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
        return "yes or no";
    o->show_reachable = v == NULL || strcmp(v, "yes") == 0;
    return NULL;
}

static const char *set_fail_on(struct options *o, const char *v)
{
    o->fail_on = class_mask_parse(v);
    if (o->fail_on < 0)
        return "a comma-separated list of definite, indirect, possible, "
               "reachable, unknown, all or none";
    return NULL;
}

/* --valgrind[=full|quiet|summary]: 1, 2, 3 (output/vgreport.h's enum
 * vg_mode: VG_FULL, VG_QUIET, VG_SUMMARY; 0 is VG_OFF). */
static const char *set_valgrind(struct options *o, const char *v)
{
    static const char *const modes[] = { "full", "quiet", "summary" };
    for (int i = 0; i < 3; i++)
        if (v == NULL || strcmp(v, modes[i]) == 0) {
            o->valgrind = 1 + i;
            return NULL;
        }
    return "full, quiet or summary";
}

/* The mask + 1: 0 is "not given". */
static const char *set_show_leak_kinds(struct options *o, const char *v)
{
    int m = class_mask_parse(v);
    if (m < 0)
        return "a comma-separated list of definite, indirect, possible, "
               "reachable, all or none";
    o->show_leak_kinds = m + 1;
    return NULL;
}

static const char *set_num_callers(struct options *o, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > 500)
        return "a number from 1 to 500";
    o->num_callers = (int)n;
    return NULL;
}

static const char *set_gen_supp(struct options *o, const char *v)
{
    o->gen_supp = 1;
    o->gen_supp_file = v;
    return NULL;
}

/* One option's text in --help: its synopsis in the first column, HELP
 * wrapped beside it. */
static void print_option_help(const struct option_row *r)
{
    char syn[128];
    option_synopsis(r, syn, sizeof syn);
    int col = printf("%s%s", r->short_name ? "  " : "      ", syn);
    for (const char *p = r->help; *p; p += strspn(p, " ")) {
        int word = (int)strcspn(p, " ");
        if (p == r->help && col <= HELP_COLUMN - 2)
            col += printf("%*s", HELP_COLUMN - col, "");
        else if (col + 2 + word <= HELP_WIDTH && p == r->help)
            col += printf("  "); /* a long synopsis: the text beside it */
        else if (col + 1 + word <= HELP_WIDTH && p != r->help)
            col += printf(" ");
        else
            col = printf("\n%*s", HELP_COLUMN, "") - 1;
        col += printf("%.*s", word, p);
        p += word;
    }
    putchar('\n');
}

static const char *set_help(struct options *o, const char *v)
{
    (void)o, (void)v;
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
        "\n",
        progname);
    for (int i = 0; i < option_count; i++)
        print_option_help(&option_rows[i]);
    printf(
        "\n"
        "Exit status: 0 no leaks, 1 leaks, 2 usage or input error (the worst\n"
        "of all logs).  For a log with reachability verdicts, 1 means leaks\n"
        "of a --fail-on class.  A file that is not an mtrace log (empty, no\n"
        "\"= Start\" line nor allocation record, the program given alone) and\n"
        "a BINARY that does not exist are input errors.\n");
    return NULL;
}

static const char *set_version(struct options *o, const char *v)
{
    (void)o, (void)v;
    printf(
        "mtrace-check (libmtrace) %s\n"
        "License GPL-3.0-or-later: <https://gnu.org/licenses/gpl.html>.\n"
        "This is free software: you are free to change and redistribute it.\n"
        "There is NO WARRANTY, to the extent permitted by law.\n",
        MTC_VERSION);
    return NULL;
}

/* ---- the table ---- */

typedef const char *setter(struct options *, const char *);
/* Where a kind's value goes: the field, the count of FILES, the setter. */
#define AT(f) offsetof(struct options, f)
#define MTC_AT_FLAG(f) AT(f), 0, NULL
#define MTC_AT_FILE(f) AT(f), 0, NULL
#define MTC_AT_FILES(f) AT(f), AT(n##f), NULL
#define MTC_AT_VALUE(f) AT(f), 0, set_##f
#define MTC_AT_OPTIONAL(f) AT(f), 0, set_##f
#define MTC_AT_EXIT(f) 0, 0, set_##f
#define MTC_ROW(f, name, s, kind, arg, help, more)                             \
    { name, s, OPTK_##kind, arg, help, more },
#define MTC_WHERE(f, name, s, kind, ...) { MTC_AT_##kind(f) },

const struct option_row option_rows[] = { MTC_OPTIONS(MTC_ROW) };
const int option_count = sizeof option_rows / sizeof option_rows[0];
static const struct {
    size_t field, count;
    setter *set;
} where[] = { MTC_OPTIONS(MTC_WHERE) };

void option_synopsis(const struct option_row *r, char *buf, unsigned size)
{
    char dash[8] = "";
    if (r->short_name)
        snprintf(dash, sizeof dash, "-%c, ", r->short_name);
    snprintf(buf, size, "%s--%s%s%s%s", dash, r->name, option_separator(r),
             r->arg, r->kind == OPTK_OPTIONAL ? "]" : "");
}

const char *option_separator(const struct option_row *r)
{
    return r->kind == OPTK_FILE || r->kind == OPTK_FILES ? " "
           : r->kind == OPTK_VALUE                        ? "="
           : r->kind == OPTK_OPTIONAL                     ? "[="
                                                          : "";
}

/* The index of the row argument A names, and in *VALUE what follows its
 * '=' (NULL when none); -1 for an unknown option. */
static int find_option(const char *a, const char **value)
{
    *value = NULL;
    for (int i = 0; i < option_count; i++) {
        const struct option_row *r = &option_rows[i];
        size_t n = strlen(r->name);
        int takes = r->kind != OPTK_FLAG && r->kind != OPTK_EXIT;
        if (r->short_name && a[1] == r->short_name && a[2] == '\0')
            return i;
        if (a[1] != '-' || strncmp(a + 2, r->name, n) != 0)
            continue;
        if (a[2 + n] == '\0')
            return i;
        if (a[2 + n] == '=' && takes) {
            *value = a + 3 + n;
            return i;
        }
    }
    return -1;
}

/* Option I given with VALUE (NULL: none).  Returns OPT_RUN to go on. */
static enum parse_result take(int i, const char *value, struct options *o,
                              int argc)
{
    const struct option_row *r = &option_rows[i];
    char *field = (char *)o + where[i].field;
    if (r->kind == OPTK_FLAG) {
        *(int *)field = 1;
        return OPT_RUN;
    }
    if (r->kind == OPTK_EXIT)
        return where[i].set(o, NULL), OPT_EXIT_OK;
    if ((value == NULL && r->kind != OPTK_OPTIONAL) ||
        (value && *value == '\0')) {
        diag_usage("--%s needs a value (it was given an empty one, or none)",
                   r->name);
        return OPT_USAGE_ERROR;
    }
    if (r->kind == OPTK_FILE) {
        *(const char **)field = value;
    } else if (r->kind == OPTK_FILES) {
        const char ***list = (const char ***)field;
        int *n = (int *)((char *)o + where[i].count);
        if (*list == NULL)
            *list = xcalloc((size_t)argc, sizeof **list);
        (*list)[(*n)++] = value;
    } else {
        const char *want = where[i].set(o, value);
        if (want) {
            diag_usage("--%s: '%s' is not %s", r->name, value, want);
            return OPT_USAGE_ERROR;
        }
    }
    return OPT_RUN;
}

void options_free(struct options *o)
{
    free(o->operands);
    o->operands = NULL;
    o->noperands = 0;
    for (int i = 0; i < option_count; i++)
        if (option_rows[i].kind == OPTK_FILES) {
            const char ***list = (const char ***)((char *)o + where[i].field);
            free(*list);
            *list = NULL;
        }
}

enum parse_result parse_options(int argc, char **argv, struct options *o)
{
    int only_args = 0;

    memset(o, 0, sizeof *o);
    o->operands = xmalloc((size_t)argc * sizeof *o->operands);
    o->fail_on = 1 << CLASS_DEFINITE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value;
        if (only_args || a[0] != '-' || strcmp(a, "-") == 0) {
            o->operands[o->noperands++] = argv[i];
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_args = 1;
            continue;
        }
        int row = find_option(a, &value);
        if (row < 0) {
            diag_usage("unrecognized option '%s'", a);
            return OPT_USAGE_ERROR;
        }
        enum option_kind k = option_rows[row].kind;
        if (value == NULL && (k == OPTK_FILE || k == OPTK_FILES))
            value = i + 1 < argc ? argv[++i] : "";
        enum parse_result res = take(row, value, o, argc);
        if (res != OPT_RUN)
            return res;
    }
    if (o->noperands == 0) {
        diag_usage("missing LOG argument");
        return OPT_USAGE_ERROR;
    }
    if (o->folded && o->json) {
        diag_usage("--folded and --json both print on standard output: "
                   "choose one");
        return OPT_USAGE_ERROR;
    }
    if (o->gen_supp && !o->gen_supp_file && (o->json || o->folded)) {
        diag_usage("--gen-suppressions prints under the text report: with "
                   "--json or --folded, give it a file "
                   "(--gen-suppressions=FILE)");
        return OPT_USAGE_ERROR;
    }
    return OPT_RUN;
}
