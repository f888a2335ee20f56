/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pprofdata.c - the samples of a heap profile, from a replayed log (see
 * pprof.h, pprof_samples): the timeline's per-stack totals (what each
 * stack allocated in all, what it holds at the end), and the leaks as the
 * report and the pictures count them.  Kept apart from pprof.c, which
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
        s[n].value[PPROF_ALLOC_OBJECTS] = t->allocs;
        s[n].value[PPROF_ALLOC_SPACE] = t->alloc_bytes;
        s[n].value[PPROF_INUSE_OBJECTS] = t->live_blocks;
        s[n].value[PPROF_INUSE_SPACE] = t->live_bytes;
        if (leaks) {
            s[n].value[PPROF_LEAKED_OBJECTS] = t->live_blocks;
            s[n].value[PPROF_LEAKED_SPACE] = t->live_bytes;
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
