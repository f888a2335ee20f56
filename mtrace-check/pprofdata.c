/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pprofdata.c - the samples of a heap profile, from a replayed log (see
 * pprof.h, pprof_samples): the timeline's per-stack totals (what each
 * stack allocated in all, what it holds at the end), and the leaks as the
 * report and the pictures count them; a sampled log's values scaled to
 * estimates, as the report's are.  Kept apart from pprof.c, which
 * knows the format and nothing of the replay.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "pprof.h"
#include "classreport.h"
#include "engine.h"
#include "sampling.h"
#include "timeline.h"

#include <stdlib.h>

/* Are the blocks live at the end the leaks?  Without verdicts, yes,
 * unless the image ended in exec (it leaked nothing: logend.h). */
static int live_are_leaks(const struct engine *e)
{
    return e->classes == NULL &&
           (!e->ext.extended || logend_leaks_count(&e->end));
}

/* What a sampled log's blocks still live at the end stand for, by
 * timeline stack index: each block scaled by its weight as the report's
 * groups scale it (engine.c), so that the figures are the same. */
struct estimate {
    uint64_t bytes;
    double blocks;
};

static struct estimate *live_estimates(struct engine *e, size_t nstacks)
{
    size_t n;
    struct block **b = table_collect(&e->table, &n);
    struct estimate *est = xcalloc(nstacks + 1, sizeof *est);

    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)(b[i]->stack + 1);
        double p = sample_probability(b[i]->size, e->ext.sample_rate);
        if (k < nstacks) {
            est[k].bytes += sample_bytes(b[i]->size, p);
            est[k].blocks += 1 / p;
        }
    }
    free(b);
    return est;
}

static uint64_t rounded(double x)
{
    return (uint64_t)(x + 0.5);
}

/* Stack I's allocations and live blocks: as recorded, or for a sampled
 * log (EST set) the estimates. */
static void stack_values(const struct tl_stack *t, const struct estimate *est,
                         size_t i, struct pprof_sample *s)
{
    s->value[PPROF_ALLOC_OBJECTS] = est ? rounded(t->est_allocs) : t->allocs;
    s->value[PPROF_ALLOC_SPACE] = est ? t->est_alloc_bytes : t->alloc_bytes;
    s->value[PPROF_INUSE_OBJECTS] = est ? rounded(est[i].blocks)
                                        : t->live_blocks;
    s->value[PPROF_INUSE_SPACE] = est ? est[i].bytes : t->live_bytes;
}

size_t pprof_samples(struct engine *e, const struct timeline *tl,
                     struct pprof_sample **out)
{
    size_t nrec = e->classes ? classview_nrecords(e->classes) : 0;
    struct pprof_sample *s = xcalloc(tl->nstacks + nrec + 1, sizeof *s);
    size_t n = 0;
    int leaks = live_are_leaks(e);
    struct estimate *est =
        e->ext.sample_rate ? live_estimates(e, tl->nstacks) : NULL;

    for (size_t i = 0; i < tl->nstacks; i++) {
        const struct tl_stack *t = &tl->stacks[i];
        if (t->allocs == 0 && t->live_blocks == 0)
            continue;
        s[n].stack = (int32_t)i - 1; /* the timeline's index is stack + 1 */
        stack_values(t, est, i, &s[n]);
        if (leaks) {
            s[n].value[PPROF_LEAKED_OBJECTS] = s[n].value[PPROF_INUSE_OBJECTS];
            s[n].value[PPROF_LEAKED_SPACE] = s[n].value[PPROF_INUSE_SPACE];
        }
        n++;
    }
    free(est);
    /* With verdicts: the lost classes' loss records, as the flame graph
     * of leaks and --folded count them, each labelled with its class. */
    for (size_t i = 0; i < nrec; i++) {
        struct loss_info r;
        classview_record(e->classes, i, &r);
        if (r.suppressed || !class_is_leak(r.cls))
            continue;
        s[n].stack = r.stack;
        s[n].value[PPROF_LEAKED_OBJECTS] = r.blocks;
        s[n].value[PPROF_LEAKED_SPACE] = r.bytes;
        s[n].leak_class = class_name(r.cls);
        n++;
    }
    *out = s;
    return n;
}
