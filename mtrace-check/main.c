/* main.c - mtrace-check: a C reimplementation of glibc's mtrace(1) Perl
 * checker that also reads libmtrace's call stacks.  This file wires the
 * parts together: options, the streaming reader, the engine, the report.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "classreport.h"
#include "engine.h"
#include "linereader.h"
#include "memlog.h"
#include "options.h"
#include "outputs.h"
#include "pipeline.h"
#include "stackview.h"
#include "symbolizer.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { EXIT_CLEAN = 0, EXIT_LEAKS = 1, EXIT_TROUBLE = 2 };

static void usage_hint(void)
{
    fprintf(stderr, "Try '%s --help' for more information.\n", progname);
}

/* MTRACE_CHECK_THREADS: 0 one thread, 2 a reader thread and a thread
 * that reads the modules' debug information meanwhile, unset: those
 * threads when a core looks free. */
static int use_threads(void)
{
    const char *threads = getenv("MTRACE_CHECK_THREADS");
    return threads && *threads ? strcmp(threads, "0") != 0 : spare_cpu();
}

static int replay(struct engine *e, struct line_reader *lr, const char *name,
                  int threads)
{
    if (threads)
        e->ext.prefetch = sym_prefetch;
    int got = threads ? pipeline_run(lr, e) : replay_serial(lr, e);
    if (got < 0) {
        fflush(stdout);
        note("%s: read error: %s", name, strerror(lr->read_errno));
        return -1;
    }
    return 0;
}

/* A libmtrace report instead of a log: print it again with file:line.
 * Returns an exit status, or -1 when PATH is not a report. */
static int print_if_report(const char *path)
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
    rewind(f);
    sym_init();
    int err = memlog_print(f, stdout);
    fclose(f);
    sym_shutdown();
    if (err || fflush(stdout) != 0) {
        note("%s: read or write error", path);
        return EXIT_TROUBLE;
    }
    return EXIT_CLEAN;
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 16];
    struct options opt;
    struct line_reader lr;
    struct report rep;
    struct engine e;
    struct outputs out;
    int leaks, err;

    switch (parse_options(argc, argv, &opt)) {
    case OPT_EXIT_OK:
        return EXIT_CLEAN;
    case OPT_USAGE_ERROR:
        usage_hint();
        return EXIT_TROUBLE;
    case OPT_RUN:
        break;
    }
    int status = print_if_report(opt.log);
    if (status >= 0)
        return status;
    err = lr_open(&lr, opt.log);
    if (err)
        die_input("cannot open mtrace data file '%s': %s", opt.log,
                  strerror(err));
    struct suppressions supp;
    supp_init(&supp);
    for (int i = 0; i < opt.nsupp; i++) {
        int serr = supp_load(&supp, opt.supp[i]);
        if (serr)
            die_input("cannot read suppressions file '%s': %s", opt.supp[i],
                      strerror(serr));
    }
    struct class_options copts = { opt.show_reachable, opt.fail_on, &supp };
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    sym_init();
    view_init(opt.binary);
    report_begin(&rep, outputs_report_stream(&out, &opt), opt.json, opt.log,
                 opt.binary);
    engine_init(&e, &rep, opt.binary);
    outputs_begin(&out, &e, lr.fd);
    e.copts = &copts;
    if (replay(&e, &lr, opt.log, use_threads()) != 0)
        return EXIT_TROUBLE;
    outputs_replayed(&out);
    leaks = engine_finish(&e);
    if (outputs_end(&out, &e) != 0)
        return EXIT_TROUBLE;
    lr_close(&lr);
    engine_destroy(&e);
    supp_destroy(&supp);
    sym_shutdown();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        note("error writing the report: %s", strerror(errno));
        return EXIT_TROUBLE;
    }
    return leaks ? EXIT_LEAKS : EXIT_CLEAN;
}
