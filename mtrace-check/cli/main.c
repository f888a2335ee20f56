/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c - mtrace-check: a C reimplementation of glibc's mtrace(1) Perl
 * checker that also reads libmtrace's call stacks.  This file wires the
 * parts together: options, operands, the reader, the replay, the report,
 * once per log.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/diag.h"
#include "replay/engine.h"
#include "output/memlog.h"
#include "cli/operands.h"
#include "cli/diffrun.h"
#include "options/options.h"
#include "output/cireport.h"
#include "output/outputs.h"
#include "replay/replay.h"
#include "cli/siblings.h"
#include "read/source.h"
#include "symbolize/stackview.h"
#include "findings/suppress.h"
#include "symbolize/symbolizer.h"
#include "output/vgcollect.h"
#include "output/treesum.h"
#include "output/runpage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

enum { EXIT_CLEAN = 0, EXIT_LEAKS = 1, EXIT_TROUBLE = 2 };

/* A log that cannot be read: the message, and in a list of logs the
 * entry the report's writer makes of it (JSON: an error entry). */
static int unreadable(const struct options *opt, const char *log,
                      int in_list, const char *why)
{
    diag(log, 0, "%s", why);
    outputs_refused(opt, log, why, in_list);
    return EXIT_TROUBLE;
}

/* A libmtrace report instead of a log: print it again with file:line
 * (JSON: an error, a report has no JSON form).  Returns an exit status,
 * or -1 when PATH is not a report. */
static int print_if_report(const char *path, const struct options *opt,
                           int in_list)
{
    char first[64] = "";
    struct stat st;
    /* Only a regular file can be read twice: a FIFO's first line would
     * be lost to the log reader. */
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    if (fgets(first, sizeof first, f) == NULL || !memlog_is_report(first)) {
        fclose(f);
        return -1;
    }
    if (opt->json) {
        fclose(f);
        return unreadable(opt, path, in_list,
                          "a libmtrace report, not a log (no JSON form)");
    }
    rewind(f);
    int err = memlog_print(f, stdout);
    fclose(f);
    if (err || fflush(stdout) != 0) {
        diag(path, 0, "read or write error");
        return EXIT_TROUBLE;
    }
    return EXIT_CLEAN;
}

/* A plain file that starts as an ELF file does: the program given where
 * its log should be ("mtrace-check ./prog").  The source's head holds the
 * first four bytes (source.h). */
static int is_elf(const struct source *src)
{
    return src->format == SRC_PLAIN && src->head_len >= 4 &&
           memcmp(src->head, "\177ELF", 4) == 0;
}

/* Why a log without a trace line (engine_traced) is refused. */
static const char *not_a_trace(const struct engine *e)
{
    if (e->nr == 0)
        return "empty: not an mtrace log (a process killed before its "
               "first write leaves one)";
    return "not an mtrace log: no \"= Start\" line and no allocation record";
}

/* The report of a log read to its end, or why it is not a log. */
static int check_replayed(const struct options *opt, const char *log,
                          struct engine *e, struct outputs *out,
                          const struct class_options *co, int in_list)
{
    int trace = e->is_trace || e->ext.extended;
    outputs_release(out, trace);
    if (!trace) {
        outputs_drop(out, e);
        return unreadable(opt, log, in_list, not_a_trace(e));
    }
    if (e->ext.untraced) { /* doc/format.md, "Untraced logs" */
        char why[256];
        snprintf(why, sizeof why,
                 "not traced: the program ran under %s, whose allocator "
                 "replaced libmtrace's; the log holds nothing of what it "
                 "allocated",
                 e->ext.untraced);
        outputs_drop(out, e);
        return unreadable(opt, log, in_list, why);
    }
    outputs_replayed(out);
    int failing = 0;
    if (outputs_end(out, e, co, &failing) != 0)
        return EXIT_TROUBLE;
    return failing ? EXIT_LEAKS : EXIT_CLEAN;
}

/* Check one log; returns its exit status.  IN_LIST: the log is one of
 * several (an error may become an entry of the list). */
static int check_log(const char *log, struct options *opt, const char *binary,
                     int in_list)
{
    struct source src;
    struct engine e;
    struct outputs out;
    char why[256];

    int status = print_if_report(log, opt, in_list);
    if (status >= 0)
        return status;
    int err = src_open(&src, log);
    if (err) {
        snprintf(why, sizeof why, "cannot open mtrace data file: %s",
                 strerror(err));
        return unreadable(opt, log, in_list, why);
    }
    if (is_elf(&src)) {
        src_close(&src);
        return unreadable(opt, log, in_list,
                          "an ELF file, not an mtrace log (the log is "
                          "missing: mtrace-check BINARY LOG)");
    }
    opt->log = log;
    opt->binary = binary;
    engine_init(&e, binary);
    /* Suppressions: the files', and then the log's own ("#C" records). */
    struct suppressions supp;
    supp_init(&supp);
    for (int i = 0; i < opt->nsupp; i++)
        supp_load(&supp, opt->supp[i], 0); /* checked: main() */
    struct class_options copts = { opt->show_reachable, opt->fail_on, &supp,
                                   ci_baseline() };
    outputs_begin(&out, opt, &e, stdout, src.format == SRC_PLAIN ? src.fd : -1);
    /* The pictures' timeline follows every event in order: plain replay. */
    int threads = e.tl ? 0 : replay_threads();
    if (threads > 1)
        e.ext.prefetch = sym_prefetch; /* a core for the debug information */
    /* With no core spare for it, the debug information is read first: it
     * is what the report waits for at the end, and sharing a core with a
     * replay helper made it finish last, alone (a third of the time on a
     * 2-core machine's stack log went to that tail). */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    replay_share_cores(
        threads > 1 && threads + 1 > cpus ? sym_prefetch_wait_idle : NULL);
    if (replay_log(&src, &e, log, threads, replay_segment_size(), NULL)) {
        fflush(stdout);
        diag(log, 0, "%s", src.error);
        outputs_drop(&out, &e);
        status = EXIT_TROUBLE;
    } else {
        if (src.truncated)
            diag(log, 0,
                 "the %s stream stops inside a frame (cut short "
                 "while written)",
                 src_format_name(src.format));
        status = check_replayed(opt, log, &e, &out, &copts, in_list);
    }
    engine_destroy(&e);
    supp_destroy(&supp);
    src_close(&src);
    return status;
}

/* Several logs: each under a header line (text), or each an element of
 * a "logs" list (JSON, doc/json.md).  Returns the worst status. */
static int check_logs(char *const *logs, int n, struct options *opt,
                      const char *binary)
{
    int worst = EXIT_CLEAN;

    if (n > 1) {
        treesum_begin(); /* the combined summary's rows (treesum.h) */
        outputs_list_begin(opt, binary, n);
    }
    for (int i = 0; i < n; i++) {
        if (n > 1) {
            treesum_log(logs[i]);
            outputs_list_item(opt, logs[i], i, n);
        }
        int status = check_log(logs[i], opt, binary, n > 1);
        if (n > 1)
            treesum_status(status);
        if (status == EXIT_TROUBLE || (status == EXIT_LEAKS && worst == 0))
            worst = status;
    }
    if (n > 1)
        outputs_list_end(opt, n);
    return worst;
}

/* glibc's checker goes on without a BINARY it cannot open (every caller
 * an address); a misspelt program name is a mistake to report, not to
 * pass.  Returns 1, or 0 with the message printed. */
static int binary_exists(const char *binary)
{
    struct stat st;
    if (*binary == '\0') {
        diag_usage("an empty BINARY operand");
        return 0;
    }
    if (stat(binary, &st) != 0) {
        diag(binary, 0, "cannot open BINARY: %s", strerror(errno));
        return 0;
    }
    return 1;
}

/* Every --suppressions file read once, before any log: 1, or 0 with
 * the message printed (each malformed line told). */
static int suppressions_ok(const struct options *opt)
{
    for (int i = 0; i < opt->nsupp; i++) {
        struct suppressions probe;
        supp_init(&probe);
        int err = supp_load(&probe, opt->supp[i], 1);
        supp_destroy(&probe);
        if (err == SUPP_MALFORMED)
            return 0;
        if (err) {
            diag(opt->supp[i], 0, "cannot read suppressions file: %s",
                 strerror(err));
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    static struct options opt; /* lives as long as the process, as do the
                                  arrays it points to */

    switch (parse_options(argc, argv, &opt)) {
    case OPT_EXIT_OK:
        return EXIT_CLEAN;
    case OPT_USAGE_ERROR:
        return EXIT_TROUBLE;
    case OPT_RUN:
        break;
    }
    if (vg_configure(&opt) != 0)
        return EXIT_TROUBLE;
    int skip = first_is_binary(opt.operands, opt.noperands);
    const char *binary = skip ? opt.operands[0] : NULL;
    if (binary && !binary_exists(binary))
        return EXIT_TROUBLE;
    if (opt.diff) {
        if (!diff_options_ok(&opt, opt.noperands - skip) ||
            !suppressions_ok(&opt))
            return EXIT_TROUBLE;
        sym_init();
        view_init(binary);
        setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
        int st = diff_run(&opt, binary, opt.operands[skip],
                          opt.operands[skip + 1]);
        sym_stop();
        if (fflush(stdout) != 0 || ferror(stdout)) {
            diag(NULL, 0, "error writing the report: %s", strerror(errno));
            return EXIT_TROUBLE;
        }
        return st;
    }
    if (opt.folded && opt.noperands - skip > 1) {
        diag_usage("--folded takes one log");
        return EXIT_TROUBLE;
    }
    if (opt.html && opt.noperands - skip > 1)
        runpage_begin(); /* one page for the whole run (runpage.h) */
    if (opt.pprof && opt.noperands - skip > 1) {
        diag_usage("--pprof takes one log");
        return EXIT_TROUBLE;
    }
    if (!suppressions_ok(&opt))
        return EXIT_TROUBLE;
    /* A wrapper's log named for the program: the program's own sibling. */
    char *sibling = opt.noperands - skip == 1
                        ? sibling_for_binary(opt.operands[skip], binary)
                        : NULL;
    if (sibling)
        opt.operands[skip] = sibling;
    if (ci_wanted(&opt) && ci_begin(&opt) != 0) {
        free(sibling);
        return EXIT_TROUBLE;
    }
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    sym_init();
    view_init(binary);
    int status = check_logs(opt.operands + skip, opt.noperands - skip, &opt,
                            binary);
    free(sibling);
    if (vg_finish() != 0 || runpage_finish(&opt) != 0)
        status = EXIT_TROUBLE;
    if (ci_wanted(&opt) && ci_end() != 0)
        status = EXIT_TROUBLE;
    sym_stop();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag(NULL, 0, "error writing the report: %s", strerror(errno));
        return EXIT_TROUBLE;
    }
    return status;
}
