/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pprofout.c - the writer of --pprof FILE (writer.h): the heap profile's
 * samples from the findings (see pprof.h, pprof_samples): the timeline's
 * per-stack totals (what each stack allocated in all, what it holds at
 * the end), and the leaks as the report and the pictures count them; a
 * sampled log's values scaled to estimates, as the report's are.  Then
 * pprof.c, which knows the format and nothing of the findings, writes it.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/pprof.h"
#include "findings/noverdict.h"
#include "output/writer.h"
#include "replay/logend.h"
#include "replay/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Are the blocks live at the end the leaks?  Without verdicts, yes,
 * unless the image ended in exec (it leaked nothing: logend.h). */
static int live_are_leaks(const struct findings *f)
{
    return !f->classified && (!f->extended || logend_leaks_count(f->end));
}

static uint64_t rounded(double x)
{
    return (uint64_t)(x + 0.5);
}

/* A stack's allocations and live blocks: as recorded, or for a sampled
 * log the estimates the timeline kept, each block scaled by its weight
 * as the findings' groups scale it, so that the figures are the same. */
static void stack_values(const struct tl_stack *t, int sampled,
                         struct pprof_sample *s)
{
    s->value[PPROF_ALLOC_OBJECTS] = sampled ? rounded(t->est_allocs)
                                            : t->allocs;
    s->value[PPROF_ALLOC_SPACE] = sampled ? t->est_alloc_bytes
                                          : t->alloc_bytes;
    s->value[PPROF_INUSE_OBJECTS] = sampled ? rounded(t->est_live_blocks)
                                            : t->live_blocks;
    s->value[PPROF_INUSE_SPACE] = sampled ? t->est_live_bytes : t->live_bytes;
}

size_t pprof_samples(const struct findings *f, struct pprof_sample **out)
{
    const struct timeline *tl = f->tl;
    size_t nrec = f->classified ? f->nrecords : 0;
    struct pprof_sample *s = xcalloc(tl->nstacks + nrec + 1, sizeof *s);
    size_t n = 0;
    int leaks = live_are_leaks(f);

    for (size_t i = 0; i < tl->nstacks; i++) {
        const struct tl_stack *t = &tl->stacks[i];
        if (t->allocs == 0 && t->live_blocks == 0)
            continue;
        s[n].stack = (int32_t)i - 1; /* the timeline's index is stack + 1 */
        stack_values(t, f->sample_rate != 0, &s[n]);
        if (leaks && s[n].value[PPROF_INUSE_OBJECTS]) {
            s[n].value[PPROF_LEAKED_OBJECTS] = s[n].value[PPROF_INUSE_OBJECTS];
            s[n].value[PPROF_LEAKED_SPACE] = s[n].value[PPROF_INUSE_SPACE];
            s[n].leak_class = nv_id; /* "not-freed": no verdicts */
        }
        n++;
    }
    /* With verdicts: the lost classes' loss records, as the flame graph
     * of leaks and --folded count them, each labelled with its class. */
    for (size_t i = 0; i < nrec; i++) {
        const struct loss_record *r = &f->records[i];
        if (r->suppressed >= 0 || !class_is_leak(r->cls))
            continue;
        s[n].stack = r->stack;
        s[n].value[PPROF_LEAKED_OBJECTS] = r->blocks;
        s[n].value[PPROF_LEAKED_SPACE] = r->bytes;
        s[n].leak_class = class_name(r->cls);
        n++;
    }
    *out = s;
    return n;
}

/* The profile, with comments naming the log and the program, and what
 * the values of a sampled log are. */
static int findings(struct writer *w, const struct findings *f)
{
    char log[4200], program[4200], sampled[160];
    const char *comments[4] = { log, NULL, NULL, NULL };
    size_t nc = 1;
    struct pprof_sample *s;

    snprintf(log, sizeof log, "mtrace-check --pprof: %s", f->log);
    if (f->program) {
        snprintf(program, sizeof program, "program: %s", f->program);
        comments[nc++] = program;
    }
    if (f->sample_rate) {
        snprintf(sampled, sizeof sampled,
                 "sampled log (sample=%" PRIu64 "): the values are "
                 "estimates, each recorded block scaled by its weight",
                 f->sample_rate);
        comments[nc++] = sampled;
    }
    size_t n = pprof_samples(f, &s);
    struct pprof_profile p = { f->stacks, s, n,
                               f->tl->has_time ? f->tl->t_last : 0,
                               f->sample_rate, comments };
    int r = pprof_write(w->opt->pprof, &p);
    free(s);
    return r;
}

/* A file beside the report (outputs.c: its row needs the timeline). */
const struct writer_ops pprof_writer = {
    .name = "pprof",
    .findings = findings,
};
