/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_config.c - MEMLEAK_CONFIG parsing (config.h): every option, the
 * bounds, combinations, empty items and exactly one warning per problem.
 */
#include "unit.h"
#include "base/config.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Warnings collected by the callback. */
static int n_warnings;
static char last_warning[512];
static int warning_had_newline;

static void collect(const char *message)
{
    n_warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", message);
    if (strchr(message, '\n'))
        warning_had_newline = 1;
}

static struct config c;

static void setup(void)
{
    n_warnings = 0;
    warning_had_newline = 0;
    last_warning[0] = '\0';
    config_defaults(&c);
}

/* Parses TEXT into fresh defaults; checks the count of problems returned
 * agrees with the warnings delivered. */
static int parse(const char *text)
{
    config_defaults(&c);
    int before = n_warnings;
    int problems = config_parse(&c, text, collect);
    ck_assert_int_eq(problems, n_warnings - before);
    ck_assert(!warning_had_newline);
    return problems;
}

static void assert_defaults(const struct config *k)
{
    /* README: depth 32 by default, the fast unwinder, no signal, default
     * report. */
    ck_assert_int_eq(k->mtraceinit, 0);
    ck_assert_int_eq(k->classic, 0);
    ck_assert_int_eq(k->depth, 32);
    ck_assert_int_eq(k->unwind, UNWIND_FAST);
    ck_assert_int_eq(k->signal, 0);
    ck_assert_str_eq(k->report, "");
}

START_TEST(defaults)
{
    struct config k;
    memset(&k, 0xff, sizeof k); /* every field must be set */
    k.report[0] = 'x';
    config_defaults(&k);
    assert_defaults(&k);
    ck_assert_int_eq(parse(NULL), 0);
    assert_defaults(&c);
    ck_assert_int_eq(parse(""), 0);
    assert_defaults(&c);
}
END_TEST

START_TEST(each_option)
{
    ck_assert_int_eq(parse("mtraceinit"), 0);
    ck_assert_int_eq(c.mtraceinit, 1);
    ck_assert_int_eq(parse("classic"), 0);
    ck_assert_int_eq(c.classic, 1);
    ck_assert_int_eq(c.mtraceinit, 0);
    ck_assert_int_eq(parse("depth=7"), 0);
    ck_assert_int_eq(c.depth, 7);
    ck_assert_int_eq(parse("unwind=glibc"), 0);
    ck_assert_int_eq(c.unwind, UNWIND_GLIBC);
    ck_assert_int_eq(parse("signal=USR1"), 0);
    ck_assert_int_eq(c.signal, SIGUSR1);
    ck_assert_int_eq(parse("report=/tmp/r.%p.%n.%e"), 0);
    ck_assert_str_eq(c.report, "/tmp/r.%p.%n.%e");
    ck_assert_int_eq(n_warnings, 0);
}
END_TEST

START_TEST(combination_and_empty_items)
{
    ck_assert_int_eq(parse(",,mtraceinit,,depth=5,classic,unwind=fp,"
                           "signal=SIGUSR2,report=stderr,"),
                     0);
    ck_assert_int_eq(c.mtraceinit, 1);
    ck_assert_int_eq(c.classic, 1);
    ck_assert_int_eq(c.depth, 5);
    ck_assert_int_eq(c.unwind, UNWIND_FP);
    ck_assert_int_eq(c.signal, SIGUSR2);
    ck_assert_str_eq(c.report, "stderr");
    ck_assert_int_eq(parse(","), 0);
    assert_defaults(&c);
    ck_assert_int_eq(parse(",,,"), 0);
    assert_defaults(&c);
    /* The last of repeated options wins. */
    ck_assert_int_eq(parse("depth=5,depth=9,unwind=fp,unwind=libunwind"), 0);
    ck_assert_int_eq(c.depth, 9);
    ck_assert_int_eq(c.unwind, UNWIND_LIBUNWIND);
}
END_TEST

/* A rejected depth warns once and leaves the previous value. */
static void bad_depth(const char *text)
{
    ck_assert_msg(parse(text) == 1, "'%s' accepted", text);
    ck_assert_int_eq(c.depth, 32);
    ck_assert_ptr_nonnull(strstr(last_warning, text));
}

START_TEST(depth_bounds)
{
    ck_assert_int_eq(parse("depth=1"), 0);
    ck_assert_int_eq(c.depth, 1);
    ck_assert_int_eq(parse("depth=256"), 0);
    ck_assert_int_eq(c.depth, 256);
    ck_assert_int_eq(parse("depth=32"), 0);
    ck_assert_int_eq(c.depth, 32);
    bad_depth("depth=0");
    bad_depth("depth=257");
    bad_depth("depth=");
    bad_depth("depth=abc");
    bad_depth("depth=-1");
    bad_depth("depth=12x");
    bad_depth("depth= 12");
    bad_depth("depth=99999999999999999999");
    bad_depth("depth=4294967297"); /* 2^32 + 1: no wrap to 1 */
    /* Earlier good value survives a later bad one. */
    ck_assert_int_eq(parse("depth=8,depth=1000"), 1);
    ck_assert_int_eq(c.depth, 8);
}
END_TEST

/* Each mistake is named for what it is: an empty value, a value that is
 * no number or size, a number out of its range (which is given). */
START_TEST(messages_say_what_is_wrong)
{
    static const struct {
        const char *text, *says;
    } cases[] = {
        { "depth=", "no value given" },
        { "depth=abc", "not a whole number" },
        { "depth=999", "out of range (1-256)" },
        { "seed=x", "not a whole number" },
        { "sample=", "no value given" },
        { "sample=lots", "not a size" },
        { "signal=", "no value given" },
        { "unwind=", "no value given" },
        { "report=", "no value given" },
        { "compress=", "no value given" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(parse(cases[i].text), 1);
        ck_assert_msg(strstr(last_warning, cases[i].says) != NULL,
                      "%s: '%s' does not say '%s'", cases[i].text,
                      last_warning, cases[i].says);
        ck_assert_msg(strstr(last_warning, cases[i].text) != NULL,
                      "'%s' does not name the option", last_warning);
    }
}
END_TEST

START_TEST(unwind_names)
{
    ck_assert_int_eq(parse("unwind=fp"), 0);
    ck_assert_int_eq(c.unwind, UNWIND_FP);
    ck_assert_int_eq(parse("unwind=glibc"), 0);
    ck_assert_int_eq(c.unwind, UNWIND_GLIBC);
    ck_assert_int_eq(parse("unwind=glibc,unwind=fast"), 0);
    ck_assert_int_eq(c.unwind, UNWIND_FAST);
    ck_assert_int_eq(parse("unwind=glibc,unwind=libunwind"), 0);
    ck_assert_int_eq(c.unwind, UNWIND_LIBUNWIND);
    static const char *bad[] = { "unwind=FP", "unwind=", "unwind=gcc",
                                 "unwind=fpx", "unwind=libunwin" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parse(bad[i]) == 1, "'%s' accepted", bad[i]);
        ck_assert_int_eq(c.unwind, UNWIND_FAST); /* the default stays */
    }
}
END_TEST

START_TEST(signal_names)
{
    ck_assert_int_eq(parse("signal=USR2"), 0);
    ck_assert_int_eq(c.signal, SIGUSR2);
    ck_assert_int_eq(parse("signal=SIGUSR2"), 0);
    ck_assert_int_eq(c.signal, SIGUSR2);
    ck_assert_int_eq(parse("signal=12"), 0);
    ck_assert_int_eq(c.signal, 12);
    ck_assert_int_eq(parse("signal=SIGTERM"), 0);
    ck_assert_int_eq(c.signal, SIGTERM);
    ck_assert_int_eq(parse("signal=HUP"), 0);
    ck_assert_int_eq(c.signal, SIGHUP);
    static const char *bad[] = {
        "signal=bogus", "signal=",      "signal=0",
        "signal=SIG",   "signal=usr2",  "signal=SIGSIGUSR2",
        "signal=USR2x", "signal=99999", "signal=-12"
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parse(bad[i]) == 1, "'%s' accepted", bad[i]);
        ck_assert_int_eq(c.signal, 0);
    }
}
END_TEST

START_TEST(signal_number_slices)
{
    /* LEN bounds the name: the text after it must not be read as part. */
    ck_assert_int_eq(config_signal_number("USR2,depth=3", 4), SIGUSR2);
    ck_assert_int_eq(config_signal_number("SIGUSR1xyz", 7), SIGUSR1);
    ck_assert_int_eq(config_signal_number("125", 2), 12);
    ck_assert_int_eq(config_signal_number("USR2", 3), 0);
    ck_assert_int_eq(config_signal_number("", 0), 0);
    ck_assert_int_eq(config_signal_number("INT", 3), SIGINT);
    ck_assert_int_eq(config_signal_number("SIGINT", 6), SIGINT);
    ck_assert_int_eq(config_signal_number("10", 2), 10);
}
END_TEST

/* A signal that exists but cannot carry reports is named as such, not
 * called unknown (issue 12). */
START_TEST(uncatchable_signals_named)
{
    static const char *bad[] = { "signal=9",    "signal=KILL", "signal=SIGSTOP",
                                 "signal=SEGV", "signal=11",   "signal=ABRT" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parse(bad[i]) == 1, "'%s' accepted", bad[i]);
        ck_assert_msg(strstr(last_warning, "cannot be caught") != NULL,
                      "'%s': %s", bad[i], last_warning);
        ck_assert_int_eq(c.signal, 0);
    }
    ck_assert_int_eq(config_signal_number("9", 1), CONFIG_SIGNAL_UNUSABLE);
    ck_assert_int_eq(config_signal_number("bogus", 5), 0);
}
END_TEST

/* "help" lists every option of the table, one line each, and is no
 * problem. */
START_TEST(help_lists_the_table)
{
    int before = n_warnings;
    ck_assert_int_eq(config_parse(&c, "help", collect), 0);
    ck_assert_int_eq(n_warnings - before, (int)config_option_count);
    /* The last line is the table's last option. */
    ck_assert_ptr_nonnull(
        strstr(last_warning, config_options[config_option_count - 1].name));
    for (size_t i = 0; i < config_option_count; i++)
        ck_assert_ptr_nonnull(config_options[i].help);
}
END_TEST

START_TEST(report_patterns)
{
    ck_assert_int_eq(parse("report=stderr"), 0);
    ck_assert_str_eq(c.report, "stderr");
    ck_assert_int_eq(parse("report=a=b%p"), 0); /* '=' in the value */
    ck_assert_str_eq(c.report, "a=b%p");
    ck_assert_int_eq(parse("report=/x/%e.%n,depth=4"), 0);
    ck_assert_str_eq(c.report, "/x/%e.%n");
    ck_assert_int_eq(c.depth, 4);
    ck_assert_int_eq(parse("report="), 1);
    ck_assert_str_eq(c.report, "");

    /* The longest pattern that fits, and one byte more. */
    char text[CONFIG_TEXT_MAX + 16];
    int n = snprintf(text, sizeof text, "report=");
    memset(text + n, 'p', CONFIG_TEXT_MAX - 1);
    text[n + CONFIG_TEXT_MAX - 1] = '\0';
    ck_assert_int_eq(parse(text), 0);
    ck_assert_uint_eq(strlen(c.report), CONFIG_TEXT_MAX - 1);
    strcat(text, "p");
    ck_assert_int_eq(parse(text), 1);
    ck_assert_str_eq(c.report, "");
}
END_TEST

START_TEST(sample_sizes_and_seed)
{
    static const struct {
        const char *text;
        size_t rate;
    } ok[] = {
        { "sample=1", 1 },
        { "sample=4096", 4096 },
        { "sample=512k", 524288 },
        { "sample=512K", 524288 },
        { "sample=2m", 2u << 20 },
        { "sample=1g", 1u << 30 },
        { "sample=1024g", 1ul << 40 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_int_eq(parse(ok[i].text), 0);
        ck_assert_uint_eq(c.sample, ok[i].rate);
    }
    static const char *const bad[] = {
        "sample=",    "sample=0", "sample=k", "sample=12x", "sample=1025g",
        "sample=-4k", "seed=0",   "seed=x",   "seed="
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(parse(bad[i]), 1);
        ck_assert_uint_eq(c.sample, 0);
        ck_assert_uint_eq(c.seed, 0);
    }
    ck_assert_int_eq(parse("sample=64k,seed=42"), 0);
    ck_assert_uint_eq(c.sample, 65536);
    ck_assert_uint_eq(c.seed, 42);
}
END_TEST

START_TEST(scan_every_seconds)
{
    static const struct {
        const char *text;
        long us;
    } ok[] = {
        { "scan_every=0.5", 500000 },  { "scan_every=2", 2000000 },
        { "scan_every=.25", 250000 },  { "scan_every=0.01", 10000 },
        { "scan_every=1.000001", 1000001 }, { "scan_every=86400", 86400000000L },
        { "scan_every=0", 0 },         { "scan_every=3.", 3000000 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_int_eq(parse(ok[i].text), 0);
        ck_assert_int_eq(c.scan_every, ok[i].us);
    }
    static const char *const bad[] = {
        "scan_every=",    "scan_every=x",    "scan_every=-1",
        "scan_every=.",   "scan_every=0.001", "scan_every=1.0000001",
        "scan_every=86401", "scan_every=1e3", "scan_every=1.5s",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(parse(bad[i]), 1);
        ck_assert_int_eq(c.scan_every, 0);
    }
    parse("scan_every=0.001");
    ck_assert_ptr_nonnull(strstr(last_warning, "(0.01-86400 seconds)"));
    parse("scan_every=abc");
    ck_assert_ptr_nonnull(strstr(last_warning, "not a duration in seconds"));
}
END_TEST

START_TEST(unknown_options_warn_once_each)
{
    ck_assert_int_eq(parse("foo,depth=3,bar=1,,baz"), 3);
    ck_assert_int_eq(n_warnings, 3);
    ck_assert_int_eq(c.depth, 3);
    ck_assert_ptr_nonnull(strstr(last_warning, "baz"));
    /* Flags do not take values; values do not stand alone. */
    static const char *bad[] = { "mtraceinit=1", "classic=yes", "depth",
                                 "unwind",       "signal",      "report",
                                 "Depth=3",      "=",           "=3",
                                 " mtraceinit" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int before = n_warnings;
        ck_assert_msg(parse(bad[i]) == 1, "'%s' accepted", bad[i]);
        ck_assert_int_eq(n_warnings, before + 1);
        assert_defaults(&c);
    }
}
END_TEST

START_TEST(long_unknown_option)
{
    /* Longer than any message buffer: one warning, nothing overflows. */
    static char text[5000];
    memset(text, 'z', sizeof text - 1);
    ck_assert_int_eq(parse(text), 1);
    ck_assert_int_eq(n_warnings, 1);
    ck_assert_ptr_nonnull(strstr(last_warning, "zzzz"));
}
END_TEST

START_TEST(no_callback)
{
    /* Without a callback the problems are still counted. */
    ck_assert_int_eq(config_parse(&c, "bogus,depth=0,depth=6", NULL), 2);
    ck_assert_int_eq(c.depth, 6);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, each_option);
    tcase_add_test(tc, combination_and_empty_items);
    tcase_add_test(tc, depth_bounds);
    tcase_add_test(tc, messages_say_what_is_wrong);
    tcase_add_test(tc, unwind_names);
    tcase_add_test(tc, signal_names);
    tcase_add_test(tc, signal_number_slices);
    tcase_add_test(tc, report_patterns);
    tcase_add_test(tc, sample_sizes_and_seed);
    tcase_add_test(tc, scan_every_seconds);
    tcase_add_test(tc, uncatchable_signals_named);
    tcase_add_test(tc, help_lists_the_table);
    tcase_add_test(tc, unknown_options_warn_once_each);
    tcase_add_test(tc, long_unknown_option);
    tcase_add_test(tc, no_callback);
    suite_add_tcase(s, tc);
    return s;
}
