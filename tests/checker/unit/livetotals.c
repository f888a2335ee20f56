/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: a live log's "#C totals" record (replay/livetotals.c): the
 * timeline takes the library's counts from it instead of the survivors'
 * lines, keeps the larger peak, and a malformed record is a bad record
 * that changes nothing.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "replay/engine.h"
#include "replay/livetotals.h"
#include "replay/timeline.h"

static void feed(struct engine *e, const char *const *lines)
{
    for (; *lines; lines++)
        engine_line(e, *lines, strlen(*lines));
}

START_TEST(totals_replace_the_lines_counts)
{
    struct engine e;
    struct timeline tl;
    engine_init(&e, NULL);
    tl_init(&tl);
    e.tl = &tl;
    static const char *const log[] = {
        "= Start", "#v 1 pid=1 depth=32 log=live", "+ 0x1000 0x20",
        "+ 0x2000 0x30",
        "#C totals allocs=1000 alloc-bytes=64000 frees=998 freed-bytes=63950 "
        "peak-bytes=9000",
        NULL
    };
    feed(&e, log);
    ck_assert_uint_eq(tl.allocs, 1000);
    ck_assert_uint_eq(tl.alloc_bytes, 64000);
    ck_assert_uint_eq(tl.frees, 998);
    ck_assert_uint_eq(tl.freed_bytes, 63950);
    ck_assert_uint_eq(tl.peak_bytes, 9000);
    ck_assert_uint_eq(e.ext.bad_records, 0);
    /* A smaller peak than the lines' own keeps the lines'. */
    static const char *const more[] = {
        "+ 0x3000 0x4000",
        "#C totals allocs=1001 alloc-bytes=80384 frees=998 freed-bytes=63950 "
        "peak-bytes=10",
        NULL
    };
    feed(&e, more);
    ck_assert_uint_eq(tl.allocs, 1001);
    ck_assert_uint_ge(tl.peak_bytes, 0x4000);
    engine_destroy(&e);
    tl_destroy(&tl);
}
END_TEST

START_TEST(malformed_totals_are_bad_records)
{
    static const char *const bad[] = {
        "#C totals allocs=1 alloc-bytes=2 frees=1 freed-bytes=2",
        "#C totals allocs=x alloc-bytes=2 frees=1 freed-bytes=2 peak-bytes=1",
        "#C totals allocs=1 alloc-bytes=2 frees=2 freed-bytes=2 peak-bytes=1",
        "#C totals allocs=1 alloc-bytes=2 frees=1 freed-bytes=3 peak-bytes=1",
        NULL
    };
    struct engine e;
    struct timeline tl;
    engine_init(&e, NULL);
    tl_init(&tl);
    e.tl = &tl;
    feed(&e, bad);
    ck_assert_uint_eq(e.ext.bad_records, 4);
    ck_assert_uint_eq(tl.allocs, 0);
    engine_destroy(&e);
    tl_destroy(&tl);
    /* Without a timeline the record is still checked. */
    engine_init(&e, NULL);
    feed(&e, bad);
    ck_assert_uint_eq(e.ext.bad_records, 4);
    engine_destroy(&e);
}
END_TEST

START_TEST(recognized)
{
    struct slice f[3] = { S("#C"), S("totals"), S("allocs=1") };
    ck_assert(livetotals_is_record(f, 3));
    f[1] = S("scan");
    ck_assert(!livetotals_is_record(f, 3));
    ck_assert(!livetotals_is_record(f, 1));
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("livetotals");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, totals_replace_the_lines_counts);
    tcase_add_test(tc, malformed_totals_are_bad_records);
    tcase_add_test(tc, recognized);
    suite_add_tcase(s, tc);
    return s;
}
