/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the option table of mtrace-check (options.h).  Every row
 * --help lists is taken by the parser in the form --help shows, values
 * land in their fields, and every usage error is told one way: the
 * message, then where to find the usage.  (That doc/mtrace-check.1 lists
 * the same rows is checked by "options-doc check", run beside this
 * suite.)
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "output/folded.h"
#include "options/options.h"
#include "replay/verdict.h"

#include <stdio.h>

static char out[8192], err[8192];

/* Parses ARGS (NULL-terminated, argv[0] added) into *O; what it printed
 * is in out and err. */
static enum parse_result parse_v(struct options *o, const char *const *args)
{
    char *argv[32] = { "mtrace-check" };
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = (char *)args[argc - 1], argc++;
    FILE *saved_out = stdout, *saved_err = stderr;
    stdout = fmemopen(out, sizeof out - 1, "w");
    stderr = fmemopen(err, sizeof err - 1, "w");
    memset(out, 0, sizeof out);
    memset(err, 0, sizeof err);
    enum parse_result r = parse_options(argc, argv, o);
    fclose(stdout);
    fclose(stderr);
    stdout = saved_out;
    stderr = saved_err;
    return r;
}
#define parse(o, ...) parse_v(o, (const char *const[]){ __VA_ARGS__, NULL })

/* The last usage error printed exactly MESSAGE, in the one form. */
static void told(const char *message)
{
    char want[512];
    snprintf(want, sizeof want,
             "mtrace-check: %s\nTry 'mtrace-check --help' for more "
             "information.\n",
             message);
    ck_assert_str_eq(err, want);
}

START_TEST(help_lists_every_row_once)
{
    struct options o;
    ck_assert_int_eq(parse(&o, "--help"), OPT_EXIT_OK);
    int lines = 0;
    for (const char *p = out; (p = strstr(p, "\n  ")) != NULL; p++)
        lines += p[3] == '-' || strncmp(p + 3, "    --", 6) == 0;
    ck_assert_int_eq(lines, option_count);
    for (int i = 0; i < option_count; i++) {
        char syn[128], line[160];
        option_synopsis(&option_rows[i], syn, sizeof syn);
        snprintf(line, sizeof line, "\n%s%s ",
                 option_rows[i].short_name ? "  " : "      ", syn);
        ck_assert_msg(strstr(out, line), "--help lacks '%s'", syn);
    }
    ck_assert(strstr(out, "Usage: mtrace-check [OPTION]... [BINARY] LOG...\n"));
    ck_assert(strstr(out, "\nExit status: 0 no leaks"));
}
END_TEST

/* Each row in each form its kind allows, and the forms it refuses. */
START_TEST(every_row_is_parsed_as_shown)
{
    struct options o;
    for (int i = 0; i < option_count; i++) {
        const struct option_row *r = &option_rows[i];
        char name[64], eq[80], msg[128];
        snprintf(name, sizeof name, "--%s", r->name);
        snprintf(msg, sizeof msg,
                 "%s needs a value (it was given an empty one, or none)",
                 name);
        switch (r->kind) {
        case OPTK_EXIT:
            ck_assert_int_eq(parse(&o, name, "log"), OPT_EXIT_OK);
            ck_assert(*out != '\0' && *err == '\0');
            break;
        case OPTK_FLAG:
            ck_assert_int_eq(parse(&o, name, "log"), OPT_RUN);
            snprintf(eq, sizeof eq, "%s=1", name);
            ck_assert_int_eq(parse(&o, eq, "log"), OPT_USAGE_ERROR);
            break;
        case OPTK_FILE:
        case OPTK_FILES:
            ck_assert_int_eq(parse(&o, name, "f", "log"), OPT_RUN);
            ck_assert_int_eq(o.noperands, 1);
            snprintf(eq, sizeof eq, "%s=f", name);
            ck_assert_int_eq(parse(&o, eq, "log"), OPT_RUN);
            ck_assert_int_eq(parse(&o, "log", name), OPT_USAGE_ERROR);
            told(msg);
            ck_assert_int_eq(parse(&o, name, "", "log"), OPT_USAGE_ERROR);
            told(msg);
            break;
        case OPTK_VALUE:
            ck_assert_int_eq(parse(&o, name, "log"), OPT_USAGE_ERROR);
            told(msg);
            break;
        case OPTK_OPTIONAL:
            ck_assert_int_eq(parse(&o, name, "log"), OPT_RUN);
            break;
        }
        if (r->kind != OPTK_FLAG && r->kind != OPTK_EXIT) {
            snprintf(eq, sizeof eq, "%s=", name);
            ck_assert_int_eq(parse(&o, eq, "log"), OPT_USAGE_ERROR);
            told(msg);
        }
        if (r->short_name) {
            char s[3] = { '-', r->short_name, '\0' };
            ck_assert_int_eq(parse(&o, s, "log"), OPT_RUN);
        }
    }
}
END_TEST

START_TEST(values_land_in_their_fields)
{
    struct options o;
    ck_assert_int_eq(parse(&o, "log"), OPT_RUN);
    ck_assert(!o.json && !o.html && !o.folded && !o.quiet &&
              !o.show_reachable && o.nsupp == 0);
    ck_assert_int_eq(o.fail_on, 1 << CLASS_DEFINITE);
    ck_assert_int_eq(parse(&o, "--json", "--html", "a.html", "-q", "bin",
                           "--suppressions", "x.supp", "--suppressions=y",
                           "--fail-on=possible,indirect", "log"),
                     OPT_RUN);
    ck_assert(o.json && o.quiet && !o.folded);
    ck_assert_str_eq(o.html, "a.html");
    ck_assert_int_eq(o.nsupp, 2);
    ck_assert_str_eq(o.supp[0], "x.supp");
    ck_assert_str_eq(o.supp[1], "y");
    ck_assert_int_eq(o.fail_on, 1 << CLASS_POSSIBLE | 1 << CLASS_INDIRECT);
    ck_assert_int_eq(o.noperands, 2);
    ck_assert_str_eq(o.operands[0], "bin");
    ck_assert_str_eq(o.operands[1], "log");
    ck_assert_int_eq(parse(&o, "--folded=peak", "--show-reachable", "log"),
                     OPT_RUN);
    ck_assert(o.folded && o.show_reachable);
    ck_assert_int_eq(o.folded_view, FOLDED_PEAK);
    ck_assert_int_eq(parse(&o, "--show-reachable=yes",
                           "--show-reachable=no", "--folded", "log"),
                     OPT_RUN);
    ck_assert(!o.show_reachable && o.folded);
    ck_assert_int_eq(o.folded_view, FOLDED_LEAKS);
    /* After "--" and "-", everything is an operand. */
    ck_assert_int_eq(parse(&o, "-", "--", "--json", "-q"), OPT_RUN);
    ck_assert(!o.json && !o.quiet);
    ck_assert_int_eq(o.noperands, 3);
    ck_assert_str_eq(o.operands[1], "--json");
}
END_TEST

START_TEST(errors_are_told_one_way)
{
    struct options o;
    ck_assert_int_eq(parse(&o, "--frobnicate", "log"), OPT_USAGE_ERROR);
    told("unrecognized option '--frobnicate'");
    ck_assert_int_eq(parse(&o, "--jsonx", "log"), OPT_USAGE_ERROR);
    told("unrecognized option '--jsonx'");
    ck_assert_int_eq(parse(&o, "-x", "log"), OPT_USAGE_ERROR);
    told("unrecognized option '-x'");
    ck_assert_int_eq(parse(&o, "--folded=live", "log"), OPT_USAGE_ERROR);
    told("--folded: 'live' is not leaks, peak or all");
    ck_assert_int_eq(parse(&o, "--fail-on=definite,lost", "log"),
                     OPT_USAGE_ERROR);
    told("--fail-on: 'definite,lost' is not a comma-separated list of "
         "definite, indirect, possible, reachable, unknown, all or none");
    ck_assert_int_eq(parse(&o, "--show-reachable=maybe", "log"),
                     OPT_USAGE_ERROR);
    told("--show-reachable: 'maybe' is not yes or no");
    ck_assert_int_eq(parse(&o, "--json"), OPT_USAGE_ERROR);
    told("missing LOG argument");
    ck_assert_int_eq(parse(&o, "--folded", "--json", "log"), OPT_USAGE_ERROR);
    told("--folded and --json both print on standard output: choose one");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, help_lists_every_row_once);
    tcase_add_test(tc, every_row_is_parsed_as_shown);
    tcase_add_test(tc, values_land_in_their_fields);
    tcase_add_test(tc, errors_are_told_one_way);
    suite_add_tcase(s, tc);
    return s;
}
