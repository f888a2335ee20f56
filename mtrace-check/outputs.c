/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outputs.c - see outputs.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "outputs.h"
#include "cireport.h"
#include "classreport.h"
#include "diag.h"
#include "folded.h"
#include "html.h"
#include "progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

FILE *outputs_report_stream(struct outputs *x, const struct options *opt)
{
    memset(x, 0, sizeof *x);
    x->opt = opt;
    if (!opt->folded)
        return stdout;
    x->null = fopen("/dev/null", "w");
    if (x->null == NULL)
        diag_fatal("/dev/null", "cannot open: %s", strerror(errno));
    return x->null;
}

void outputs_begin(struct outputs *x, struct engine *e, int log_fd)
{
    struct stat st;
    uint64_t total = 0;

    if (x->opt->html || x->opt->folded) {
        tl_init(&x->tl);
        e->tl = &x->tl;
        x->timeline = 1;
    }
    if (fstat(log_fd, &st) == 0 && S_ISREG(st.st_mode))
        total = (uint64_t)st.st_size;
    progress_start(&e->bytes, total, x->opt->quiet);
}

void outputs_replayed(struct outputs *x)
{
    (void)x;
    progress_phase("resolving stacks");
}

/* A log reported by class: the leaks are the lost classes' bytes, as in
 * the text report and the HTML page. */
static int write_folded(struct outputs *x, struct engine *e)
{
    enum folded_view v = (enum folded_view)x->opt->folded_view;
    if (v != FOLDED_LEAKS || e->classes == NULL)
        return folded_write(stdout, &e->ext, &x->tl, v);
    uint64_t *w = classview_lost_bytes(e->classes, x->tl.nstacks);
    int r = folded_write_weights(stdout, &e->ext, &x->tl, w);
    free(w);
    return r;
}

/* Write the pictures when WRITE, then release what outputs_begin took. */
static int finish(struct outputs *x, struct engine *e, int write)
{
    int err = 0;

    /* The CI files' loss records (written when every log is checked). */
    if (write && ci_wanted(x->opt) && ci_log(x->opt->log, e) != 0)
        err = -1;
    if (x->timeline && !write) {
        e->tl = NULL;
        tl_destroy(&x->tl);
    } else if (x->timeline) {
        tl_finish(&x->tl, &e->table, e->nr);
        if (x->opt->html) {
            struct html_source src = { x->opt->log, x->opt->binary };
            progress_phase("writing the HTML report");
            err |= html_write(x->opt->html, e, &x->tl, &src);
        }
        if (x->opt->folded && write_folded(x, e) != 0)
            err = -1;
        e->tl = NULL;
        tl_destroy(&x->tl);
    }
    progress_stop();
    if (x->null)
        fclose(x->null);
    return err ? -1 : 0;
}

int outputs_end(struct outputs *x, struct engine *e)
{
    return finish(x, e, 1);
}

void outputs_drop(struct outputs *x, struct engine *e)
{
    finish(x, e, 0);
}
