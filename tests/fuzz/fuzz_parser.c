/* fuzz_parser.c - libFuzzer harness for mtrace-check's reading side: the
 * streaming reader, the tokenizer, the Perl-compatible replay (table,
 * string pool, location patterns), the extension records, the stack view
 * and both report formats.  The input is a log; its length picks the mode
 * (plain loop or reader thread, text or JSON).  No BINARY is given, so no
 * program is run and addr2line is never asked; module paths named by the
 * log are opened with libbfd as the real tool would.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "engine.h"
#include "fields.h"
#include "folded.h"
#include "html.h"
#include "lineindex.h"
#include "linereader.h"
#include "pipeline.h"
#include "stackview.h"
#include "symbolizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
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

/* So must the reader thread's whole-buffer indexer, line by line. */
static void check_indexer(const uint8_t *data, size_t size)
{
    static struct line_indexer ix;
    const char *p = (const char *)data, *end = p + size;
    size_t k = 0;

    index_buffer(&ix, p, size);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct slice f[ENGINE_FIELDS];
        size_t nf = split_fields(p, len, f, ENGINE_FIELDS);
        if (k >= ix.nlines || ix.lines[k].len != len)
            abort();
        const struct line_index *li = &ix.lines[k++];
        if (!li->is_long) {
            if (li->nf != nf)
                abort();
            for (size_t i = 0; i < nf; i++)
                if (p + li->start[i] != f[i].p || li->size[i] != f[i].n)
                    abort();
        }
        p += len + 1;
    }
    if (k != ix.nlines)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_splitters(data, size);
    check_indexer(data, size);

    int fd = memfd_create("log", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    lseek(fd, 0, SEEK_SET);

    struct line_reader lr;
    struct report rep;
    struct engine e;
    lr_init_fd(&lr, fd);
    report_begin(&rep, sink, size % 3 == 1, "fuzz", NULL);
    engine_init(&e, &rep, NULL);
    /* Every other input also feeds the pictures (--html, --folded). */
    struct timeline tl;
    if (size % 2 == 0) {
        tl_init(&tl);
        e.tl = &tl;
    }
    if (size % 3 == 2)
        pipeline_run(&lr, &e);
    else
        replay_serial(&lr, &e);
    engine_finish(&e);
    if (e.tl) {
        struct html_source src = { "fuzz", NULL, NULL, 0 };
        tl_finish(&tl, &e.table, e.nr);
        folded_write(sink, &e.ext, &tl, (enum folded_view)(size % 3));
        html_write("/dev/null", &e, &tl, &src);
        tl_destroy(&tl);
    }
    engine_destroy(&e);
    lr_close(&lr);
    close(fd);
    return 0;
}
