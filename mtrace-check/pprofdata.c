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
#include "timeline.h"

#include <stdlib.h>

/* Are the blocks live at the end the leaks?  Without verdicts, yes,
 * unless the image ended in exec (it leaked nothing: logend.h). */
static int live_are_leaks(const struct engine *e)
{
    return e->classes == NULL &&
           (!e->ext.extended || logend_leaks_count(&e->end));
}

static uint64_t rounded(double x)
{
    return (uint64_t)(x + 0.5);
}

/* A stack's allocations and live blocks: as recorded, or for a sampled
 * log the estimates the timeline kept, each block scaled by its weight
 * as the report's groups scale it (engine.c), so that the figures are
 * the same. */
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

size_t pprof_samples(const struct engine *e, const struct timeline *tl,
                     struct pprof_sample **out)
{
    size_t nrec = e->classes ? classview_nrecords(e->classes) : 0;
    struct pprof_sample *s = xcalloc(tl->nstacks + nrec + 1, sizeof *s);
    size_t n = 0;
    int leaks = live_are_leaks(e);

    for (size_t i = 0; i < tl->nstacks; i++) {
        const struct tl_stack *t = &tl->stacks[i];
        if (t->allocs == 0 && t->live_blocks == 0)
            continue;
        s[n].stack = (int32_t)i - 1; /* the timeline's index is stack + 1 */
        stack_values(t, e->ext.sample_rate != 0, &s[n]);
        if (leaks) {
            s[n].value[PPROF_LEAKED_OBJECTS] = s[n].value[PPROF_INUSE_OBJECTS];
            s[n].value[PPROF_LEAKED_SPACE] = s[n].value[PPROF_INUSE_SPACE];
        }
        n++;
    }
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
