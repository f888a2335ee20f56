/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memlog.c - reads a libmtrace report (doc/report.md) and prints it again
 * with the source location of every frame: each frame line
 *   "  #K NAME+0xSYMOFF (MODULE+0xOFF)"
 * gets " at FILE:LINE" (for the call, i.e. OFF-1), and the functions
 * inlined at that place follow on lines of their own.  Every other line
 * is copied as it is.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/memlog.h"
#include "base/diag.h"
#include "symbolize/symbolizer.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_MAGIC "# libmtrace report"

int memlog_is_report(const char *first_line)
{
    return strncmp(first_line, REPORT_MAGIC, strlen(REPORT_MAGIC)) == 0;
}

/* The module part of a frame line: the last " (" ... ")" group, holding
 * "PATH+0xOFF".  Fills PATH (NUL-terminated copy) and OFF; 0 if none. */
static int frame_location(const char *line, char *path, size_t size,
                          uint64_t *off)
{
    const char *open = NULL;
    for (const char *p = strstr(line, " ("); p; p = strstr(p + 1, " ("))
        open = p;
    size_t len = strlen(line);
    if (open == NULL || len < 2 || line[len - 1] != ')')
        return 0;
    const char *start = open + 2, *end = line + len - 1;
    const char *plus = NULL;
    for (const char *p = start; p < end; p++)
        if (*p == '+')
            plus = p;
    if (plus == NULL || plus == start || (size_t)(plus - start) >= size ||
        strncmp(plus + 1, "0x", 2) != 0)
        return 0;
    char *stop;
    *off = strtoull(plus + 3, &stop, 16);
    if (stop != end)
        return 0;
    memcpy(path, start, (size_t)(plus - start));
    path[plus - start] = '\0';
    return 1;
}

static int is_frame_line(const char *line)
{
    /* "  #K ..." in a stack, "  N bytes M blocks ..." under by-frame */
    return strncmp(line, "  #", 3) == 0 ||
           (strncmp(line, "  ", 2) == 0 && strstr(line, " bytes ") != NULL);
}

static void print_location(FILE *out, const struct sym_frame *f)
{
    fprintf(out, "%s:%u", f->file ? f->file : "??", f->line);
}

/* LINE (no newline) with its source location, and its inlined callees. */
static void print_frame_line(FILE *out, const char *line)
{
    char path[4096];
    uint64_t off;
    fputs(line, out);
    if (!frame_location(line, path, sizeof path, &off) || off == 0) {
        fputc('\n', out);
        return;
    }
    struct objfile *o = sym_open(path);
    const struct sym_result *r = sym_usable(o) ? sym_frames(o, off - 1) : NULL;
    if (r == NULL || r->nframes == 0) {
        fputc('\n', out);
        return;
    }
    /* The outermost of the inline chain is the function the frame is in. */
    const struct sym_frame *outer = &r->frames[r->nframes - 1];
    fputs(" at ", out);
    print_location(out, outer);
    fputc('\n', out);
    for (unsigned i = 0; i + 1 < r->nframes; i++) {
        fprintf(out, "      inlined: %s at ",
                r->frames[i].function ? r->frames[i].function : "??");
        print_location(out, &r->frames[i]);
        fputc('\n', out);
    }
}

int memlog_print(FILE *in, FILE *out)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int seen_end = 0;
    while ((n = getline(&line, &cap, in)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (is_frame_line(line))
            print_frame_line(out, line);
        else
            fprintf(out, "%s\n", line);
        seen_end = strcmp(line, "end") == 0;
    }
    free(line);
    if (ferror(in))
        return -1;
    if (!seen_end)
        diag(NULL, 0, "the report is cut short (no \"end\" line)");
    return 0;
}
