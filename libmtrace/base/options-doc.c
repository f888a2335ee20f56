/* SPDX-License-Identifier: GPL-3.0-or-later */
/* options-doc.c - writes the MEMLEAK_CONFIG option tables of README.md
 * and doc/libmtrace.3 from the one option table (config.h), so that the
 * docs describe exactly the options the library has.
 *   options-doc markdown|man          the table, on stdout
 *   options-doc check README MANPAGE  exit 1 when a file's table differs
 *   options-doc update README MANPAGE rewrite the tables in place
 * The table sits between the lines "<!-- options: begin -->" and
 * "<!-- options: end -->" in README, and between '.\" options: begin' and
 * '.\" options: end' in the man page.  A build tool, not part of the
 * library.  GPL-3.0-or-later. */
#include "base/config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void range_text(const struct config_option *o, char *buf, size_t n,
                       int man)
{
    char def[64];
    config_default_text(o, def, sizeof def);
    buf[0] = '\0';
    if (o->kind == CONFIG_NUMBER && *def)
        snprintf(buf, n, " (%ld%s%ld, default %s)", o->lo, man ? "\\(en" : "–",
                 o->hi, def);
    else if (o->kind == CONFIG_NUMBER) /* the help says what the default is */
        snprintf(buf, n, " (%ld%s%ld)", o->lo, man ? "\\(en" : "–", o->hi);
    else if (o->kind == CONFIG_CHOICE) {
        size_t len = (size_t)snprintf(buf, n, " (%s: ", o->arg);
        for (int i = 0; o->choices[i] && len < n; i++)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
                                    o->choices[i]);
        if (len < n)
            snprintf(buf + len, n - len, "; default %s)", def);
    }
}

static void markdown(FILE *out)
{
    fprintf(out, "| option | meaning |\n|---|---|\n");
    for (size_t i = 0; i < config_option_count; i++) {
        const struct config_option *o = &config_options[i];
        char range[256];
        range_text(o, range, sizeof range, 0);
        fprintf(out, "| `%s%s%s` | %s%s |\n", o->name, *o->arg ? "=" : "",
                o->arg, o->help, range);
    }
}

static void man(FILE *out)
{
    for (size_t i = 0; i < config_option_count; i++) {
        const struct config_option *o = &config_options[i];
        char range[256];
        range_text(o, range, sizeof range, 1);
        fprintf(out, ".TP\n");
        if (*o->arg)
            fprintf(out, ".BI %s= %s\n", o->name, o->arg);
        else
            fprintf(out, ".B %s\n", o->name);
        /* A line starting with a dot or quote would be a request. */
        fprintf(out, "%s%s%s.\n", o->help[0] == '.' ? "\\&" : "", o->help,
                range);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Checks or rewrites the table of PATH; returns 0 when it was right. */
static int one_file(const char *path, const char *begin, const char *end,
                    void (*gen)(FILE *), int update)
{
    size_t len;
    char *text = slurp(path, &len);
    if (text == NULL) {
        fprintf(stderr, "options-doc: cannot read %s\n", path);
        return 2;
    }
    char *b = strstr(text, begin), *e = b ? strstr(b, end) : NULL;
    if (b == NULL || e == NULL) {
        fprintf(stderr, "options-doc: %s has no '%s' ... '%s' lines\n", path,
                begin, end);
        free(text);
        return 2;
    }
    b += strlen(begin) + 1; /* the table starts on the next line */
    char *want;
    size_t want_len;
    FILE *mem = open_memstream(&want, &want_len);
    gen(mem);
    fclose(mem);
    int same = (size_t)(e - b) == want_len && memcmp(b, want, want_len) == 0;
    if (!same && update) {
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(text, 1, (size_t)(b - text), f) == 0 ||
            fwrite(want, 1, want_len, f) != want_len || fputs(e, f) == EOF ||
            fclose(f) != 0) {
            fprintf(stderr, "options-doc: cannot write %s\n", path);
            return 2;
        }
    } else if (!same) {
        fprintf(stderr,
                "options-doc: the option table of %s differs from "
                "libmtrace/config.h: run 'make docs'\n",
                path);
    }
    free(want);
    free(text);
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "markdown") == 0) {
        markdown(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "man") == 0) {
        man(stdout);
        return 0;
    }
    int update = argc == 4 && strcmp(argv[1], "update") == 0;
    if (argc != 4 || (!update && strcmp(argv[1], "check") != 0)) {
        fprintf(stderr, "usage: options-doc markdown|man\n"
                        "       options-doc check|update README MANPAGE\n");
        return 2;
    }
    int r = one_file(argv[2], "<!-- options: begin -->",
                     "<!-- options: end -->", markdown, update);
    int m = one_file(argv[3], ".\\\" options: begin", ".\\\" options: end", man,
                     update);
    if (update)
        return r > 1 || m > 1 ? 2 : 0;
    return r > m ? r : m;
}
