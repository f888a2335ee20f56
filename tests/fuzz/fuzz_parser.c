/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_parser.c - libFuzzer harness for mtrace-check's reading side: the
 * reader (mapped or read, plain or compressed), the tokenizer, the
 * Perl-compatible replay (table, string pool, location patterns) on one
 * thread or several (segments replayed on their own, then applied), the
 * extension records, the stack view and both report formats.  The input
 * is a log; its length picks the mode (threads, segment size, mapped or
 * read, text or JSON).  No BINARY is given, so no
 * program is run and addr2line is never asked; module paths named by the
 * log are opened with libbfd as the real tool would.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "output/outputs.h"
#include "read/fields.h"
#include "replay/engine.h"
#include "replay/replay.h"
#include "symbolize/stackview.h"
#include "symbolize/symbolizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* libFuzzer's entry points (it declares them in no header). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sym_init();
    view_init(NULL);
    return 0;
}

/* The fast splitter must agree with the plain one on any bytes. */
static void check_splitters(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *nl;
    struct slice a[8], b[8];
    const char *want_nl = memchr(p, '\n', size);
    size_t line_len = want_nl ? (size_t)(want_nl - p) : size;
    size_t max = 1 + size % 8;
    size_t na = split_fields(p, line_len, a, max);
    size_t nb = split_line(p, p + size, b, max, &nl);

    if (na != nb || nl != want_nl)
        abort();
    for (size_t i = 0; i < na; i++)
        if (a[i].p != b[i].p || a[i].n != b[i].n)
            abort();
}

/* The report of the log in FD (from its start), or NULL. */
static char *replay_text(int fd, int mapped, int json, int threads,
                         size_t segment)
{
    struct source src;
    char path[64], *text = NULL;
    size_t len = 0;

    lseek(fd, 0, SEEK_SET);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (!mapped)
        src_open_fd(&src, fd);
    else if (src_open(&src, path) != 0)
        return NULL;
    FILE *out = open_memstream(&text, &len);
    struct options opt = { .json = json, .quiet = 1, .log = "fuzz" };
    struct outputs x;
    struct engine e;
    int failing;
    engine_init(&e, NULL);
    outputs_begin(&x, &opt, &e, out, -1);
    if (replay_log(&src, &e, "fuzz", threads, segment, NULL) == 0) {
        outputs_release(&x, e.is_trace || e.ext.extended); /* as main.c */
        outputs_end(&x, &e, NULL, &failing);
    } else {
        outputs_drop(&x, &e);
    }
    engine_destroy(&e);
    src_close(&src);
    fclose(out);
    return text;
}

static void pictures(int fd, size_t size)
{
    FILE *sink = fopen("/dev/null", "w");
    struct source src;
    struct engine e;
    struct outputs x;
    int failing;
    /* The report thrown away; the pictures written (folded and HTML). */
    struct options opt = { .json = size % 3 == 1, .html = "/dev/null",
                           .folded = (int)(size % 2),
                           .folded_view = (int)(size % 3), .quiet = 1,
                           .log = "fuzz" };

    if (!sink)
        return;
    lseek(fd, 0, SEEK_SET);
    src_open_fd(&src, fd);
    engine_init(&e, NULL);
    outputs_begin(&x, &opt, &e, sink, -1);
    if (replay_log(&src, &e, "fuzz", 0, 0, NULL) == 0) {
        outputs_release(&x, e.is_trace || e.ext.extended); /* as main.c */
        outputs_end(&x, &e, NULL, &failing);
    } else {
        outputs_drop(&x, &e);
    }
    engine_destroy(&e);
    src_close(&src);
    fclose(sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_splitters(data, size);

    int fd = memfd_create("log", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }

    /* Once replayed plainly from the fd, once as SIZE picks (mapped through
     * /proc/self/fd or read, threads, segment size): the reports must be
     * the same. */
    static const size_t segments[] = { 1, 7, 64, 0 };
    int json = size % 5 == 1;
    char *one = replay_text(fd, 0, json, 0, 0);
    char *two = replay_text(fd, size % 2, json, 1 + (int)(size / 2 % 3),
                            segments[size / 6 % 4]);
    if (one && two && strcmp(one, two) != 0)
        abort();
    free(one);
    free(two);

    /* Every other input also feeds the pictures (--html, --folded), from
     * the plain replay (the timeline follows every event in order). */
    if (size % 2 == 0)
        pictures(fd, size);
    close(fd);
    return 0;
}
