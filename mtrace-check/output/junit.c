/* SPDX-License-Identifier: GPL-3.0-or-later */
/* junit.c - --junit FILE: the leaks as JUnit XML, the test report format
 * Jenkins (junit step), GitLab (artifacts:reports:junit), Azure and most
 * CI read.  One <testsuite> per log (named after it), one <testcase> per
 * leak loss record, named after its class, the function it is shown at
 * and its fingerprint (so that a CI keeps one test's history across runs:
 * no sizes, addresses or line numbers in the name); file and line are
 * attributes.  A record that fails the run (--fail-on) is a <failure>
 * whose text is the allocation stack; a leak of a class that does not
 * fail it passes, its stack in <system-out>; one in the baseline is
 * <skipped>.  A log without leaks has one passing test case, "no leaks",
 * so that a clean run shows as a passed test rather than nothing.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cifields.h"
#include "base/diag.h"
#include "output/writer.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at P (0: invalid). */
static size_t utf8_len(const unsigned char *p)
{
    size_t n = p[0] >= 0xf0 && p[0] < 0xf5 ? 4
               : p[0] >= 0xe0                ? 3
               : p[0] >= 0xc2 && p[0] < 0xe0 ? 2
                                             : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* S as XML character data or attribute value: markup escaped, bytes XML
 * cannot hold (control characters, invalid UTF-8) as '?'. */
static void xml_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); continue;
        case '<': fputs("&lt;", out); continue;
        case '>': fputs("&gt;", out); continue;
        case '"': fputs("&quot;", out); continue;
        case '\'': fputs("&apos;", out); continue;
        case '\t': case '\n': putc(*p, out); continue;
        }
        size_t n = *p < 0x80 ? 1 : utf8_len(p);
        if (*p < 0x20 || n == 0) {
            putc('?', out);
            continue;
        }
        fwrite(p, 1, n, out);
        p += n - 1;
    }
}

/* What a writer to a memory stream wrote, XML-escaped. */
static void xml_from(FILE *out, void (*write)(FILE *, const void *),
                     const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        diag_fatal(NULL, "out of memory");
    write(m, arg);
    fclose(m);
    xml_text(out, text);
    free(text);
}

struct message_args {
    const struct ci_report *rep;
    const struct ci_log *l;
    const struct ci_record *r;
};

static void message(FILE *m, const void *arg)
{
    const struct message_args *a = arg;
    ci_message(m, a->rep, a->l, a->r);
}

static void stack_text(FILE *m, const void *arg)
{
    const struct ci_record *r = ((const struct message_args *)arg)->r;
    if (!r->has_stack)
        fputs("(no stack recorded)\n", m);
    for (size_t i = 0; i < r->frames.n; i++)
        report_text_frame(m, i, &r->frames.v[i]);
    fprintf(m, "  fingerprint %s\n", r->fp);
}

static void counts(FILE *out, const struct ci_log *l, size_t *tests,
                   size_t *failures, size_t *skipped)
{
    *tests = *failures = *skipped = 0;
    for (size_t i = 0; i < l->n + l->nres; i++) {
        const struct ci_record *r = i < l->n ? &l->r[i] : &l->res[i - l->n];
        if (ci_reported(r)) {
            ++*tests;
            *failures += r->failing;
            *skipped += r->baseline;
        }
    }
    if (out)
        fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                "skipped=\"%zu\"", *tests ? *tests : 1, *failures, *skipped);
}

/* classname: "mtrace-check." and the log's base name, dots made '_' (a
 * CI reads the dots of a class name as packages). */
static void classname(FILE *out, const char *log)
{
    const char *base = strrchr(log, '/') ? strrchr(log, '/') + 1 : log;
    fputs(" classname=\"mtrace-check.", out);
    for (const char *p = base; *p; p++) {
        char c[2] = { *p == '.' ? '_' : *p, 0 };
        xml_text(out, c);
    }
    putc('"', out);
}

static void testcase(FILE *out, const struct message_args *a)
{
    const struct ci_record *r = a->r;
    const struct view_frame *f = fp_own_frame(&r->frames);
    unsigned line;
    const char *file = ci_source(r, &line);
    fputs("    <testcase", out);
    classname(out, a->l->log);
    if (r->resource) {
        fputs(" name=\"", out);
        xml_text(out, r->resource);
        fputs(" ", out);
    } else
        fputs(" name=\"", out);
    fprintf(out, "%s in ", ci_kind_words(r));
    xml_text(out, f && f->function ? f->function : "??");
    fprintf(out, " [%s]\"", r->fp);
    if (file) {
        fputs(" file=\"", out);
        xml_text(out, file);
        fprintf(out, "\" line=\"%u\"", line);
    }
    fputs(">\n      ", out);
    const char *close = "</system-out>";
    if (r->baseline) {
        fputs("<skipped message=\"in the baseline: ", out);
        xml_from(out, message, a);
        fputs("\"/>\n      <system-out>", out);
    } else if (r->failing) {
        fprintf(out, "<failure type=\"%s\" message=\"", ci_kind_id(r));
        xml_from(out, message, a);
        fputs("\">", out);
        close = "</failure>";
    } else {
        fputs("<system-out>", out);
    }
    xml_from(out, stack_text, a);
    fprintf(out, "%s\n    </testcase>\n", close);
}

static void testsuite(FILE *out, const struct ci_report *rep,
                      const struct ci_log *l)
{
    size_t tests, failures, skipped;
    fputs("  <testsuite name=\"", out);
    xml_text(out, l->log);
    putc('"', out);
    counts(out, l, &tests, &failures, &skipped);
    fputs(">\n", out);
    for (size_t i = 0; i < l->n + l->nres; i++) {
        const struct ci_record *r = i < l->n ? &l->r[i] : &l->res[i - l->n];
        if (ci_reported(r)) {
            struct message_args a = { rep, l, r };
            testcase(out, &a);
        }
    }
    if (tests == 0) {
        fputs("    <testcase", out);
        classname(out, l->log);
        fputs(" name=\"no leaks\"/>\n", out);
    }
    fputs("  </testsuite>\n", out);
}

int junit_write(FILE *out, const struct ci_report *rep)
{
    size_t tests = 0, failures = 0, skipped = 0;
    for (size_t k = 0; k < rep->nlogs; k++) {
        size_t t, f, s;
        counts(NULL, &rep->logs[k], &t, &f, &s);
        tests += t ? t : 1;
        failures += f;
        skipped += s;
    }
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"mtrace-check\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"0\" skipped=\"%zu\">\n",
            tests, failures, skipped);
    for (size_t k = 0; k < rep->nlogs; k++)
        testsuite(out, rep, &rep->logs[k]);
    fputs("</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
