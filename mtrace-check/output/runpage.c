/* SPDX-License-Identifier: GPL-3.0-or-later */
/* runpage.c - the HTML page of a whole run (see runpage.h).  The page is
 * plain HTML and a style sheet, no script of its own: the process table
 * links to each process's section by its fragment (#proc-N), and each
 * section holds that process's report, the page html.c writes for one
 * log, as the srcdoc of a frame.  A srcdoc frame is of the page's own
 * origin and needs no request, so the report's own script runs there
 * under the same Content-Security-Policy (which a srcdoc frame inherits
 * from its parent: the policy below is the report's).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/runpage.h"
#include "base/diag.h"
#include "base/util.h"
#include "output/html.h"
#include "output/treesum.h"
#include "output/vgreport.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int active;
/* Each log's report, in a temporary file; NULL where the log was not
 * checked or its report could not be written.  By treesum's row. */
static FILE **reports;
static size_t nreports;

void runpage_begin(void)
{
    active = 1;
}

int runpage_active(void)
{
    return active;
}

/* The report of the current log (treesum's last row) into a temporary
 * file: html_write() names a path, the file's own /dev/fd name does. */
static int findings(struct writer *w, const struct findings *f)
{
    (void)w;
    size_t row = treesum_tree()->n - 1;
    reports = xrealloc(reports, (row + 1) * sizeof *reports);
    while (nreports <= row)
        reports[nreports++] = NULL;
    FILE *tmp = tmpfile();
    char path[64];
    if (tmp == NULL) {
        diag(NULL, 0, "cannot write the HTML report: %s", strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "/dev/fd/%d", fileno(tmp));
    if (html_write(path, f) != 0) {
        fclose(tmp);
        return -1;
    }
    reports[row] = tmp;
    return 0;
}

const struct writer_ops runpage_writer = {
    .name = "run-page",
    .findings = findings,
};

/* ---- the page ------------------------------------------------------------ */

/* S as HTML text or attribute value. */
static void put_text(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: putc(s[i], out);
        }
    }
}

static void put_str(FILE *out, const char *s)
{
    put_text(out, s, strlen(s));
}

/* One report, read back and written as an attribute value. */
static int put_report(FILE *out, FILE *report)
{
    char buf[1 << 15];
    size_t n;
    rewind(report);
    while ((n = fread(buf, 1, sizeof buf, report)) > 0)
        put_text(out, buf, n);
    return ferror(report) ? -1 : 0;
}

static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, "
    "initial-scale=1\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
    "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src "
    "data:\">\n<title>mtrace-check: a run of %zu processes</title>\n<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}\n"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
    "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "th{background:#eee}tr.failing td.status{color:#b00;font-weight:bold}\n"
    "section.proc{margin-top:2em;border-top:2px solid #888}\n"
    "section.proc:target h2{background:#ffd}\n"
    "iframe{width:100%%;height:85vh;border:1px solid #ccc}\n"
    "code{font-size:90%%}\n</style>\n</head>\n<body>\n";

/* "BYTES bytes in BLOCKS blocks" as a cell, the numbers as data. */
static void sum_cell(FILE *out, const char *key, const struct tree_sum *s)
{
    char a[32], b[32];
    fprintf(out,
            "<td class=\"n\" data-key=\"%s\" data-bytes=\"%" PRIu64
            "\" data-blocks=\"%" PRIu64 "\">%s bytes in %s blocks</td>",
            key, s->bytes, s->blocks, vg_commas(s->bytes, a),
            vg_commas(s->blocks, b));
}

static const char *const row_keys[TREE_ROWS] = {
    [TREE_DEFINITE] = "definitely_lost", [TREE_INDIRECT] = "indirectly_lost",
    [TREE_POSSIBLE] = "possibly_lost",   [TREE_REACHABLE] = "still_reachable",
    [TREE_UNKNOWN] = "unknown",          [TREE_NOTFREED] = "not_freed",
    [TREE_SUPPRESSED] = "suppressed",
};

static void totals_table(FILE *out, const struct tree *t)
{
    char c[32];
    fputs("<h2>Combined totals</h2>\n<table id=\"totals\">\n<tr><th>class"
          "</th><th>bytes in blocks</th><th>loss records</th></tr>\n",
          out);
    for (int r = 0; r < TREE_ROWS; r++) {
        fprintf(out, "<tr data-key=\"%s\" data-records=\"%" PRIu64
                     "\"><th>%s</th>",
                row_keys[r], t->row[r].records, treesum_words(r));
        sum_cell(out, row_keys[r], &t->row[r]);
        fprintf(out, "<td class=\"n\">%s</td></tr>\n",
                vg_commas(t->row[r].records, c));
    }
    fputs("</table>\n", out);
}

static void process_row(FILE *out, const struct tree_proc *p, size_t i,
                        int has_report)
{
    fprintf(out, "<tr id=\"row-%zu\" data-pid=\"%" PRIu64 "\"%s>", i, p->pid,
            p->status == 1 ? " class=\"failing\"" : "");
    if (p->pid)
        fprintf(out, "<td class=\"n\">%" PRIu64 "</td>", p->pid);
    else
        fputs("<td>?</td>", out);
    if (p->ppid)
        fprintf(out, "<td class=\"n\">%" PRIu64 "</td>", p->ppid);
    else
        fputs("<td>-</td>", out);
    fputs("<td><code>", out);
    put_str(out, p->program ? p->program : "?");
    fputs("</code></td><td>", out);
    put_str(out, p->checked ? p->end : "not checked");
    fprintf(out, "</td><td class=\"status n\">%d</td>", p->status);
    for (int r = 0; r < TREE_ROWS; r++)
        sum_cell(out, row_keys[r], &p->row[r]);
    fputs("<td>", out);
    if (has_report)
        fprintf(out, "<a href=\"#proc-%zu\">report</a> ", i);
    fputs("<code>", out);
    put_str(out, p->log);
    fputs("</code></td></tr>\n", out);
}

static void process_table(FILE *out, const struct tree *t)
{
    fputs("<h2>Processes</h2>\n<table id=\"procs\">\n<tr><th>pid</th>"
          "<th>parent</th><th>program</th><th>exit</th><th>status</th>",
          out);
    for (int r = 0; r < TREE_ROWS; r++)
        fprintf(out, "<th>%s</th>", treesum_words(r));
    fputs("<th>report, log</th></tr>\n", out);
    for (size_t i = 0; i < t->n; i++)
        process_row(out, &t->p[i], i, i < nreports && reports[i]);
    fputs("</table>\n", out);
}

static int process_section(FILE *out, const struct tree_proc *p, size_t i)
{
    fprintf(out, "<section class=\"proc\" id=\"proc-%zu\">\n<h2>pid %" PRIu64
                 ": <code>",
            i, p->pid);
    put_str(out, p->program ? p->program : "?");
    fputs("</code> (<code>", out);
    put_str(out, p->log);
    fputs("</code>) <a href=\"#procs\">back to the processes</a></h2>\n"
          "<iframe title=\"the report of ",
          out);
    put_str(out, p->log);
    fputs("\" srcdoc=\"", out);
    int err = put_report(out, reports[i]);
    fputs("\"></iframe>\n</section>\n", out);
    return err;
}

static int write_page(FILE *out, const struct tree *t)
{
    int err = 0;
    fprintf(out, head, t->n);
    fprintf(out, "<h1>mtrace-check: a run of %zu processes</h1>\n", t->n);
    fprintf(out, "<p>Status %d. Each process's own report is one click "
                 "away (the <q>report</q> link).</p>\n",
            treesum_exit_status(t));
    totals_table(out, t);
    process_table(out, t);
    for (size_t i = 0; i < t->n; i++)
        if (i < nreports && reports[i])
            err |= process_section(out, &t->p[i], i);
    fputs("</body>\n</html>\n", out);
    return err;
}

int runpage_finish(const struct options *o)
{
    if (!active)
        return 0;
    int err = 0;
    FILE *out = fopen(o->html, "w");
    if (out == NULL) {
        diag(o->html, 0, "cannot write the HTML report: %s", strerror(errno));
        err = -1;
    } else {
        err = write_page(out, treesum_tree());
        if (fclose(out) != 0 || err) {
            diag(o->html, 0, "error writing the HTML report: %s",
                 strerror(errno ? errno : EIO));
            err = -1;
        }
    }
    for (size_t i = 0; i < nreports; i++)
        if (reports[i])
            fclose(reports[i]);
    free(reports);
    reports = NULL;
    nreports = 0;
    return err;
}
