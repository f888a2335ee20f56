/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diffrun.c - the --diff mode of mtrace-check (see diffrun.h): both logs
 * read with the same options, their findings kept side by side, the
 * comparison handed to the writers.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "cli/diffrun.h"
#include "base/diag.h"
#include "findings/diff.h"
#include "findings/findings.h"
#include "findings/suppress.h"
#include "output/cireport.h"
#include "output/outputs.h"
#include "read/source.h"
#include "replay/engine.h"
#include "replay/replay.h"

#include <stdlib.h>
#include <string.h>

enum { EXIT_CLEAN = 0, EXIT_LEAKS = 1, EXIT_TROUBLE = 2 };

/* One log of the two, read and judged. */
struct side {
    const char *log;
    struct engine e;
    struct timeline tl; /* --html, NEW: the page's data */
    int with_tl;
    struct suppressions supp;
    struct class_options co;
    struct findings f;
    int built, engine_up;
};

int diff_options_ok(const struct options *opt, int nlogs)
{
    const char *other = opt->folded        ? "--folded"
                        : opt->valgrind    ? "--valgrind"
                        : opt->xml         ? "--xml"
                        : opt->pprof       ? "--pprof"
                        : ci_wanted(opt)   ? "the CI outputs and baselines"
                                           : NULL;
    if (other) {
        diag_usage("--diff cannot be combined with %s", other);
        return 0;
    }
    if (nlogs != 2) {
        diag_usage("--diff takes two logs: [BINARY] OLD NEW");
        return 0;
    }
    return 1;
}

static int refuse(const char *log, const char *why)
{
    diag(log, 0, "%s", why);
    return -1;
}

/* Replays S->log; 0, or -1 after saying why. */
static int replay_side(struct side *s, const char *binary)
{
    struct source src;
    int err = src_open(&src, s->log);
    if (err)
        return refuse(s->log, strerror(err));
    engine_init(&s->e, binary);
    s->engine_up = 1;
    if (s->with_tl) {
        tl_init(&s->tl);
        s->tl.sample_rate = &s->e.ext.sample_rate;
        s->e.tl = &s->tl;
    }
    int threads = s->with_tl ? 0 : replay_threads();
    int failed = replay_log(&src, &s->e, s->log, threads,
                            replay_segment_size(), NULL);
    if (failed)
        refuse(s->log, src.error);
    src_close(&src);
    if (failed)
        return -1;
    if (!s->e.is_trace && !s->e.ext.extended)
        return refuse(s->log, "not an mtrace log");
    if (s->e.ext.untraced)
        return refuse(s->log, "not traced (the program ran under another "
                              "allocator): nothing to compare");
    if (s->with_tl)
        tl_finish(&s->tl, &s->e.table, s->e.nr);
    return 0;
}

static int open_side(struct side *s, const struct options *opt,
                     const char *binary)
{
    supp_init(&s->supp);
    for (int i = 0; i < opt->nsupp; i++)
        supp_load(&s->supp, opt->supp[i], 0); /* checked: main() */
    s->co = (struct class_options){ .show_reachable = opt->show_reachable,
                                    .fail_on = opt->fail_on,
                                    .supp = &s->supp,
                                    .baseline = NULL };
    if (replay_side(s, binary) != 0)
        return -1;
    findings_build(&s->f, &s->e, s->log, binary, &s->co,
                   s->with_tl ? &s->tl : NULL);
    s->built = 1;
    return 0;
}

static void close_side(struct side *s)
{
    if (s->built)
        findings_destroy(&s->f);
    if (s->engine_up) {
        s->e.tl = NULL;
        engine_destroy(&s->e);
    }
    if (s->with_tl)
        tl_destroy(&s->tl);
    supp_destroy(&s->supp);
}

int diff_run(struct options *opt, const char *binary, const char *old,
             const char *new)
{
    static struct side sides[2]; /* large; one comparison per process */
    struct side *a = &sides[0], *b = &sides[1];
    a->log = old;
    b->log = new;
    b->with_tl = opt->html != NULL;
    opt->binary = binary;
    opt->log = new;
    int status = EXIT_TROUBLE;
    if (open_side(a, opt, binary) == 0 && open_side(b, opt, binary) == 0) {
        struct findings_diff d;
        diff_build(&d, &a->f, &b->f);
        if (outputs_diff(opt, &d, stdout) == 0)
            status = d.failing ? EXIT_LEAKS : EXIT_CLEAN;
        diff_destroy(&d);
    }
    close_side(b);
    close_side(a);
    return status;
}
