/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_suppress.c - LeakSanitizer's suppression syntax (suppress.h): the
 * pattern match and the parsing of a suppressions file.
 */
#include "unit.h"
#include "scan/suppress.h"
#include <string.h>

START_TEST(patterns_match_as_lsan_does)
{
    static const struct {
        const char *pattern, *text;
        int match;
    } cases[] = {
        { "foo", "foo", 1 },
        { "foo", "xfoox", 1 }, /* anywhere in the name */
        { "^foo", "foobar", 1 },
        { "^foo", "xfoo", 0 },
        { "foo$", "barfoo", 1 },
        { "foo$", "foobar", 0 },
        { "^foo$", "foo", 1 },
        { "^foo$", "foox", 0 },
        { "a*c", "abbbc", 1 },
        { "a*c", "cab", 0 },
        { "*", "anything", 1 },
        { "libfoo.so", "/usr/lib/libfoo.so.1", 1 },
        { "std::vector<*>::push_back", "std::vector<int, a>::push_back(int)",
          1 },
        { "foo", "", 0 },
        { "^*bar$", "foobar", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(suppress_pattern_matches(cases[i].pattern,
                                               cases[i].text) == cases[i].match,
                      "'%s' on '%s'", cases[i].pattern, cases[i].text);
    ck_assert(!suppress_pattern_matches("foo", NULL));
}
END_TEST

START_TEST(file_keeps_leak_entries_only)
{
    const char *text = "# comment\n"
                       "leak:first_fn\n"
                       "  leak:indented  \r\n"
                       "race:not_ours\n"
                       "\n"
                       "leak:\n"
                       "leak:last";
    ck_assert_uint_eq(suppress_parse(text, strlen(text)), 3);
    ck_assert_uint_eq(suppress_count(), 3);
    ck_assert_str_eq(suppress_pattern(0), "first_fn");
    ck_assert_str_eq(suppress_pattern(1), "indented");
    ck_assert_str_eq(suppress_pattern(2), "last");
    ck_assert_ptr_null(suppress_pattern(3));
}
END_TEST

Suite *suppress_suite(void)
{
    Suite *s = suite_create("suppress");
    TCase *c = tcase_create("syntax");
    tcase_add_test(c, patterns_match_as_lsan_does);
    tcase_add_test(c, file_keeps_leak_entries_only);
    suite_add_tcase(s, c);
    return s;
}
