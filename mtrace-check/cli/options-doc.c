/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options-doc.c - writes the SYNOPSIS and OPTIONS of doc/mtrace-check.1
 * from the option table (options.h), so that the man page lists exactly
 * the options the parser takes, as --help does:
 *   options-doc man                the two parts, on stdout
 *   options-doc check MANPAGE      exit 1 when the page's parts differ
 *   options-doc update MANPAGE     rewrite them in place (make docs)
 * Each part sits between the lines '.\" synopsis: begin' and
 * '.\" synopsis: end', '.\" options: begin' and '.\" options: end'.
 * A build tool, not part of mtrace-check.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "options/options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain text as roff: options' dashes as \-, backslashes as \e, a
 * leading dot or quote kept from being a request. */
static void roff(FILE *out, const char *s)
{
    int in_option = 0;
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (const char *p = s; *p; p++) {
        if (*p == ' ' || *p == '(' || *p == '[')
            in_option = 0;
        else if (*p == '-' && (p == s || strchr(" ([", p[-1])))
            in_option = 1;
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-' && in_option)
            fputs("\\-", out);
        else
            fputc(*p, out);
    }
}

/* The option as written: "\fB\-\-html\fR \fIFILE\fR"; in ARG, upper-case
 * words are placeholders (italic), lower-case ones literal (bold). */
static void tag(FILE *out, const struct option_row *r, const char *or)
{
    if (r->short_name)
        fprintf(out, "\\fB\\-%c\\fR%s", r->short_name, or);
    char name[64];
    snprintf(name, sizeof name, "--%s", r->name);
    fputs("\\fB", out);
    roff(out, name);
    fputs("\\fR", out);
    fputs(option_separator(r), out);
    for (const char *p = r->arg; *p;) {
        size_t n = strcspn(p, "|");
        fprintf(out, "\\f%c%.*s\\fR", isupper((unsigned char)*p) ? 'I' : 'B',
                (int)n, p);
        p += n;
        if (*p == '|')
            fputc(*p++, out);
    }
    if (r->kind == OPTK_OPTIONAL)
        fputc(']', out);
}

static void synopsis(FILE *out)
{
    fputs(".B mtrace-check\n", out);
    for (int i = 0; i < option_count; i++) {
        if (option_rows[i].kind == OPTK_EXIT)
            continue;
        fputs("\\%[", out); /* \% : never hyphenated */
        tag(out, &option_rows[i], "|");
        fputs(option_rows[i].kind == OPTK_FILES ? "]...\n" : "]\n", out);
    }
    fputs(".RI [ BINARY ]\n.IR LOG ...\n.br\n.B mtrace-check\n", out);
    const char *sep = "";
    for (int i = 0; i < option_count; i++) {
        if (option_rows[i].kind != OPTK_EXIT)
            continue;
        fputs(sep, out);
        tag(out, &option_rows[i], "|");
        sep = " | ";
    }
    fputc('\n', out);
}

static void options(FILE *out)
{
    for (int i = 0; i < option_count; i++) {
        const struct option_row *r = &option_rows[i];
        fputs(".TP\n", out);
        tag(out, r, ", ");
        fputc('\n', out);
        char first[2] = { (char)toupper((unsigned char)r->help[0]), '\0' };
        roff(out, first);
        roff(out, r->help + 1);
        fputs(*r->more ? ".  " : ".", out);
        roff(out, r->more);
        fputc('\n', out);
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    int c;
    while ((c = getc(f)) != EOF)
        putc(c, mem);
    fclose(f);
    fclose(mem);
    return text;
}

/* Replaces in *TEXT the lines between the NAME markers by what GEN
 * writes.  Returns 1 when they changed, 0 when not, -1 without markers. */
static int part(char **text, const char *path, const char *name,
                void (*gen)(FILE *))
{
    char begin[64], end[64], *want, *out;
    size_t want_len, out_len;
    snprintf(begin, sizeof begin, ".\\\" %s: begin\n", name);
    snprintf(end, sizeof end, ".\\\" %s: end\n", name);
    char *b = strstr(*text, begin), *e = b ? strstr(b, end) : NULL;
    if (e == NULL) {
        fprintf(stderr, "options-doc: %s has no '%s' ... '%s' lines\n", path,
                begin, end);
        return -1;
    }
    b += strlen(begin);
    FILE *mem = open_memstream(&want, &want_len);
    gen(mem);
    fclose(mem);
    int same = (size_t)(e - b) == want_len && memcmp(b, want, want_len) == 0;
    mem = open_memstream(&out, &out_len);
    fprintf(mem, "%.*s%s%s", (int)(b - *text), *text, want, e);
    fclose(mem);
    free(want);
    free(*text);
    *text = out;
    return !same;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "man") == 0) {
        synopsis(stdout);
        options(stdout);
        return 0;
    }
    int update = argc == 3 && strcmp(argv[1], "update") == 0;
    if (argc != 3 || (!update && strcmp(argv[1], "check") != 0)) {
        fputs("usage: options-doc man | options-doc check|update MANPAGE\n",
              stderr);
        return 2;
    }
    char *text = slurp(argv[2]);
    if (text == NULL) {
        fprintf(stderr, "options-doc: cannot read %s\n", argv[2]);
        return 2;
    }
    int s = part(&text, argv[2], "synopsis", synopsis);
    int o = s < 0 ? -1 : part(&text, argv[2], "options", options);
    if (s < 0 || o < 0)
        return 2;
    if (!update && (s || o))
        fprintf(stderr,
                "options-doc: the SYNOPSIS or OPTIONS of %s differ from "
                "mtrace-check/options/options.h: run 'make docs'\n",
                argv[2]);
    if (update && (s || o)) {
        FILE *f = fopen(argv[2], "wb");
        if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
            fprintf(stderr, "options-doc: cannot write %s\n", argv[2]);
            return 2;
        }
    }
    free(text);
    return !update && (s || o);
}
