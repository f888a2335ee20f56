/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer_fixture.h - what the writer suites (test_writer.c,
 * test_writer_limits.c) share: a temporary folder per test, files in it,
 * and a record stream written through a writer with its reference text
 * built beside it. */
#ifndef UT_WRITER_FIXTURE_H
#define UT_WRITER_FIXTURE_H
#include "unit.h"
#include "base/writer.h"
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

static char tmpdir[256];

static inline void writer_fixture_setup(void)
{
    ut_mkdtemp(tmpdir, sizeof tmpdir);
}

static inline void writer_fixture_teardown(void)
{
    ut_rmtree(tmpdir);
}

static inline int open_tmp(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    return fd;
}

static inline off_t file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return st.st_size;
}

/* A mixed record stream, built alongside with snprintf as the reference. */
static inline size_t emit_records(struct writer *w, char *ref, size_t cap, int n)
{
    size_t len = 0;
    uint64_t seed = 7;
    for (int i = 0; i < n; i++) {
        uint64_t a = ut_rand(&seed) >> (i % 64), b = ut_rand(&seed) >> (i % 61);
        writer_puts(w, "@ ./prog:[");
        writer_ptr(w, a | 1);
        writer_puts(w, "] + ");
        writer_dec(w, a);
        writer_putc(w, ' ');
        writer_dec(w, b);
        writer_putc(w, '\n');
        len += (size_t)snprintf(
            ref + len, cap - len,
            "@ ./prog:[%#" PRIx64 "] + %" PRIu64 " %" PRIu64 "\n", a | 1, a, b);
        UT_CHECK(len < cap, "reference buffer too small");
    }
    return len;
}

#endif
