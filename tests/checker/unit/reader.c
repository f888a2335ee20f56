/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the log's bytes (source.c, zsource.c) and their cutting
 * into segments (feeder.c): whole lines in every segment, mapped or read,
 * at every segment size; lines longer than the limit skipped with a
 * marker in constant memory; zstd and gzip told by their magic numbers,
 * concatenated, cut short and corrupt.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "read/feeder.h"
#include "read/source.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* A temporary file holding LEN bytes of TEXT; returns its path. */
static char *temp_file(const void *text, size_t len)
{
    static char path[64];
    strcpy(path, "/tmp/mtc-reader-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* What the feeder hands out: the bytes of every segment, with "<L>" for
 * a long-line marker; and checks on each segment's shape. */
struct collected {
    char *text;
    size_t len;
    int markers, segments;
    size_t max_cap;
};

static void collect(struct source *src, size_t target, struct collected *c)
{
    struct feeder f;
    struct segment seg = { 0 };
    FILE *out = open_memstream(&c->text, &c->len);
    int got;

    c->markers = c->segments = 0;
    c->max_cap = 0;
    feeder_init(&f, src, target);
    while ((got = feeder_next(&f, &seg)) > 0) {
        c->segments++;
        if (seg.long_line) {
            c->markers++;
            fputs("<L>", out);
            continue;
        }
        ck_assert_uint_gt(seg.len, 0);
        /* Whole lines: a newline at the end, unless the input ended. */
        ck_assert_int_eq(seg.buf[seg.len - 1] != '\n', seg.unterminated);
        /* A line over the limit that came whole is a marker too. */
        for (const char *p = seg.buf, *end = p + seg.len; p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl + 1 : end) - p);
            if (n - (nl != NULL) > FEED_LINE_MAX)
                fputs("<L>", out);
            else
                fwrite(p, 1, n, out);
            p += n;
        }
        feeder_release(&f, &seg);
        if (seg.cap > c->max_cap)
            c->max_cap = seg.cap;
    }
    ck_assert_int_eq(got, 0);
    segment_free(&seg);
    feeder_destroy(&f);
    fclose(out);
}

/* Every way to read PATH: mapped (src_open) and read through a pipe, at
 * several segment sizes; each must hand out EXPECT. */
static void expect_everywhere(const char *path, const char *expect,
                              size_t expect_len)
{
    static const size_t targets[] = { 1, 3, 64, 4096, 0 };
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        for (int piped = 0; piped < 2; piped++) {
            struct source src;
            struct collected c;
            FILE *pipe = NULL;
            if (piped) {
                char cmd[128];
                snprintf(cmd, sizeof cmd, "cat %s", path);
                pipe = popen(cmd, "r");
                ck_assert_ptr_nonnull(pipe);
                src_open_fd(&src, fileno(pipe));
            } else {
                ck_assert_int_eq(src_open(&src, path), 0);
            }
            collect(&src, targets[t] ? targets[t] : 1 << 21, &c);
            ck_assert_uint_eq(c.len, expect_len);
            ck_assert(memcmp(c.text, expect, expect_len) == 0);
            free(c.text);
            src_close(&src);
            if (pipe)
                pclose(pipe);
        }
    }
}

START_TEST(lines_and_truncation)
{
    static const char text[] = "a\n\nb c\0d\nlonger line here\nlast";
    char *path = temp_file(text, sizeof text - 1);
    expect_everywhere(path, text, sizeof text - 1);
    unlink(path);
}
END_TEST

/* Lines of exactly the limit are read; one byte more is a marker. */
START_TEST(long_lines_skipped)
{
    size_t big = FEED_LINE_MAX;
    char *text = malloc(3 * big + 64), *want = malloc(2 * big + 64);
    size_t n = 0, w = 0;
    n += (size_t)sprintf(text + n, "x\n");
    memset(text + n, 'k', big); /* kept: exactly the limit */
    n += big;
    text[n++] = '\n';
    memset(text + n, 'y', big + 1); /* skipped */
    n += big + 1;
    n += (size_t)sprintf(text + n, "\nz\n");
    memset(text + n, 'q', big + 7); /* skipped, last, no newline */
    n += big + 7;
    w += (size_t)sprintf(want + w, "x\n");
    memset(want + w, 'k', big);
    w += big;
    want[w++] = '\n';
    w += (size_t)sprintf(want + w, "<L>z\n<L>");
    char *path = temp_file(text, n);
    expect_everywhere(path, want, w);
    unlink(path);
    free(text);
    free(want);
}
END_TEST

/* A 64 MiB line from a pipe: one marker, and no buffer of its size. */
START_TEST(endless_line_bounded)
{
    FILE *pipe = popen("{ head -c 67108864 /dev/zero; printf '\\nok\\n'; }",
                       "r");
    struct source src;
    struct collected c;
    ck_assert_ptr_nonnull(pipe);
    src_open_fd(&src, fileno(pipe));
    collect(&src, 1 << 20, &c);
    ck_assert_uint_eq(c.len, 6);
    ck_assert(memcmp(c.text, "<L>ok\n", 6) == 0);
    ck_assert_uint_le(c.max_cap, 2 * (FEED_LINE_MAX + (1 << 20)));
    free(c.text);
    src_close(&src);
    pclose(pipe);
}
END_TEST

static size_t gzip_bytes(const char *in, size_t n, unsigned char *out,
                         size_t cap)
{
    z_stream z = { 0 };
    ck_assert_int_eq(
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

static size_t zstd_bytes(const char *in, size_t n, unsigned char *out,
                         size_t cap)
{
    size_t len = ZSTD_compress(out, cap, in, n, 3);
    ck_assert(!ZSTD_isError(len));
    return len;
}

/* Two compressed members of FORMAT, then the same cut short and spoiled. */
static void check_compressed(enum src_format format)
{
    static const char a[] = "= Start\n+ 0x1 0x10\n", b[] = "- 0x1\n= End\n";
    unsigned char z[512];
    size_t (*pack)(const char *, size_t, unsigned char *,
                   size_t) = format == SRC_ZSTD ? zstd_bytes : gzip_bytes;
    size_t n = pack(a, sizeof a - 1, z, sizeof z);
    n += pack(b, sizeof b - 1, z + n, sizeof z - n);

    char *path = temp_file(z, n);
    struct source src;
    ck_assert_int_eq(src_open(&src, path), 0);
    ck_assert_int_eq(src.format, format);
    src_close(&src);
    expect_everywhere(path, "= Start\n+ 0x1 0x10\n- 0x1\n= End\n", 31);
    unlink(path);

    /* Cut inside the second member: the first is read, truncated set. */
    path = temp_file(z, n - 3);
    ck_assert_int_eq(src_open(&src, path), 0);
    struct collected c;
    collect(&src, 1 << 20, &c);
    ck_assert(src.truncated);
    ck_assert(c.len >= sizeof a - 1 && memcmp(c.text, a, sizeof a - 1) == 0);
    free(c.text);
    src_close(&src);
    unlink(path);

    /* Spoiled: a read error with a message. */
    memset(z + 8, 0xff, 16);
    path = temp_file(z, n);
    ck_assert_int_eq(src_open(&src, path), 0);
    char buf[256];
    ssize_t got;
    while ((got = src_read(&src, buf, sizeof buf)) > 0)
        ;
    ck_assert_int_eq(got, -1);
    ck_assert(strstr(src.error, "corrupt") != NULL);
    src_close(&src);
    unlink(path);
}

START_TEST(zstd_logs)
{
    check_compressed(SRC_ZSTD);
}
END_TEST

START_TEST(gzip_logs)
{
    check_compressed(SRC_GZIP);
}
END_TEST

START_TEST(plain_not_mistaken)
{
    /* A text log that starts with the bytes '(' and 0xb5 is not zstd. */
    static const char text[] = "(\xb5 not zstd\n";
    char *path = temp_file(text, sizeof text - 1);
    struct source src;
    ck_assert_int_eq(src_open(&src, path), 0);
    ck_assert_int_eq(src.format, SRC_PLAIN);
    src_close(&src);
    expect_everywhere(path, text, sizeof text - 1);
    unlink(path);
}
END_TEST

START_TEST(peek_first_line)
{
    char head[16];
    unsigned char z[128];
    size_t n = zstd_bytes("= Start\n", 8, z, sizeof z);
    char *path = temp_file(z, n);
    ck_assert_int_eq(src_peek(path, head, sizeof head), 8);
    ck_assert_str_eq(head, "= Start\n");
    unlink(path);
    ck_assert_int_eq(src_peek("/nonexistent", head, sizeof head), -1);
    ck_assert_int_eq(src_peek("/dev/zero", head, sizeof head), -1);
}
END_TEST

START_TEST(directory_refused)
{
    struct source src;
    ck_assert_int_ne(src_open(&src, "/"), 0);
    ck_assert_int_ne(src_open(&src, "/nonexistent/file"), 0);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("reader");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lines_and_truncation);
    tcase_add_test(tc, long_lines_skipped);
    tcase_add_test(tc, endless_line_bounded);
    tcase_add_test(tc, zstd_logs);
    tcase_add_test(tc, gzip_logs);
    tcase_add_test(tc, plain_not_mistaken);
    tcase_add_test(tc, peek_first_line);
    tcase_add_test(tc, directory_refused);
    suite_add_tcase(s, tc);
    return s;
}
