/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_counted.c - see fp_counted.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/fp_counted.h"
#include "base/maps.h"

#include <stdlib.h>

/* Whether frames of MODULE are the C runtime's, answered once per module
 * string.  The strings outlive the call (the views point to them), so
 * their addresses name them while it lasts. */
struct runtime_memo {
    struct u64map by_module; /* module pointer -> 1 + answer */
    const char *last;
    int last_runtime;
};

static int is_runtime(struct runtime_memo *m, const struct view_frame *f)
{
    if (f->module == NULL)
        return 0;
    if (f->module == m->last)
        return m->last_runtime;
    void **slot = u64map_put(&m->by_module, (uint64_t)(uintptr_t)f->module);
    if (*slot == NULL)
        *slot = (void *)(uintptr_t)(1 + fp_frame_is_runtime(f));
    m->last = f->module;
    m->last_runtime = (int)((uintptr_t)*slot - 1);
    return m->last_runtime;
}

/* One stack's flags: 1 for each frame not the runtime's, or all 1 when
 * every frame is. */
static void flag_stack(struct runtime_memo *m, const struct view_frames *f,
                       uint8_t *out)
{
    int own = 0;
    for (size_t i = 0; i < f->n; i++) {
        out[i] = !is_runtime(m, &f->v[i]);
        own |= out[i];
    }
    for (size_t i = 0; !own && i < f->n; i++)
        out[i] = 1;
}

void fp_counted_init(struct fp_counted *c, const struct fp_item *items,
                     size_t n)
{
    c->start = xcalloc(n + 1, sizeof *c->start);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        c->start[i] = total;
        total += items[i].frames ? items[i].frames->n : 0;
    }
    c->start[n] = total;
    c->flags = xmalloc(total + 1);
}

void fp_counted_fill(struct fp_counted *c, const struct fp_item *items,
                     size_t from, size_t to)
{
    struct runtime_memo m = { .last = NULL, .last_runtime = 0 };
    u64map_init(&m.by_module);
    for (size_t i = from; i < to; i++)
        if (items[i].frames)
            flag_stack(&m, items[i].frames, c->flags + c->start[i]);
    u64map_destroy(&m.by_module);
}

const uint8_t *fp_counted_of(const struct fp_counted *c, size_t i)
{
    return c->flags + c->start[i];
}

void fp_counted_destroy(struct fp_counted *c)
{
    free(c->flags);
    free(c->start);
}
