/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_writer_room.c - writer_room and writer_commit (writer.h): pieces
 * formatted in place come out byte for byte as writer_put writes them,
 * whole (a piece is never split across two writes), mixed with puts,
 * through buffers of every small size; no room in a buffer smaller than
 * the piece, nor in a failed writer; the unbuffered mode's flush at a
 * line's end. */
#define _GNU_SOURCE
#include "writer_fixture.h"
#include <stdlib.h>
#include <string.h>

static void setup(void)
{
    writer_fixture_setup();
}

/* Piece K of the stream: 1 to 40 bytes, some ending a line. */
static size_t make_piece(char *out, uint64_t *seed)
{
    size_t n = 1 + ut_rand(seed) % 40;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)('a' + ut_rand(seed) % 26);
    if (ut_rand(seed) % 3 == 0)
        out[n - 1] = '\n';
    return n;
}

/* Every other piece in place (asking for more room than it takes, as
 * the log's writers do), the rest with writer_put: the file is the
 * stream, and a write(2) never ends inside a piece that fits. */
START_TEST(room_and_put_interleaved)
{
    static char ref[200000];
    uint64_t seed = 7;
    for (size_t cap = 1; cap <= 64; cap++) {
        char path[512], name[32], buf[64];
        snprintf(name, sizeof name, "c%zu", cap);
        struct writer w;
        writer_init(&w, open_tmp(name, path, sizeof path), buf, cap);
        size_t len = 0;
        for (int k = 0; len + 64 < sizeof ref; k++) {
            char piece[64];
            size_t n = make_piece(piece, &seed), ask = n + ut_rand(&seed) % 8;
            char *room = k % 2 ? writer_room(&w, ask) : NULL;
            if (room) {
                ck_assert_uint_le(w.len + ask, w.cap);
                memcpy(room, piece, n);
                writer_commit(&w, n);
            } else {
                ck_assert(k % 2 == 0 || ask > cap);
                writer_put(&w, piece, n);
            }
            memcpy(ref + len, piece, n);
            len += n;
        }
        ck_assert_int_eq(writer_flush(&w), 0);
        size_t got;
        char *text = ut_slurp(path, &got);
        ck_assert_uint_eq(got, len);
        ck_assert_msg(memcmp(text, ref, len) == 0, "cap %zu corrupts", cap);
        free(text);
        writer_close(&w);
    }
}
END_TEST

/* Room flushes what is buffered when the piece does not fit after it. */
START_TEST(room_flushes_first)
{
    char path[512], buf[16];
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    writer_puts(&w, "0123456789");
    ck_assert_int_eq(file_size(path), 0);
    char *room = writer_room(&w, 8);
    ck_assert_ptr_eq(room, buf);
    ck_assert_int_eq(file_size(path), 10);
    memcpy(room, "abc\n", 4);
    writer_commit(&w, 4);
    ck_assert_uint_eq(w.len, 4);
    ck_assert_ptr_null(writer_room(&w, sizeof buf + 1));
    ck_assert_int_eq(writer_flush(&w), 0);
    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "0123456789abc\n");
    free(text);
    writer_close(&w);
}
END_TEST

START_TEST(no_room_when_failed_or_closed)
{
    char buf[64];
    struct writer w;
    writer_init(&w, -1, buf, sizeof buf);
    ck_assert_ptr_null(writer_room(&w, 8));
    writer_init(&w, open("/dev/full", O_WRONLY), buf, sizeof buf);
    writer_puts(&w, "x");
    ck_assert_int_ne(writer_flush(&w), 0);
    ck_assert_ptr_null(writer_room(&w, 8));
    writer_close(&w);
}
END_TEST

START_TEST(commit_unbuffered_flushes_at_newline)
{
    char path[512], buf[64];
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    w.unbuffered = 1;
    memcpy(writer_room(&w, 16), "+ 0x10", 6);
    writer_commit(&w, 6);
    ck_assert_int_eq(file_size(path), 0); /* no line end yet */
    memcpy(writer_room(&w, 16), " 0x20\n", 6);
    writer_commit(&w, 6);
    ck_assert_int_eq(file_size(path), 12);
    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "+ 0x10 0x20\n");
    free(text);
    writer_close(&w);
}
END_TEST

Suite *writer_room_suite(void)
{
    Suite *s = suite_create("writer_room");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, writer_fixture_teardown);
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, room_and_put_interleaved);
    tcase_add_test(tc, room_flushes_first);
    tcase_add_test(tc, no_room_when_failed_or_closed);
    tcase_add_test(tc, commit_unbuffered_flushes_at_newline);
    suite_add_tcase(s, tc);
    return s;
}
