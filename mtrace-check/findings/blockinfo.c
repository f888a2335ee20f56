/* SPDX-License-Identifier: GPL-3.0-or-later */
/* blockinfo.c - previews and C++ classes of leaked blocks (see
 * blockinfo.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/blockinfo.h"
#include "symbolize/vtable.h"

/* The class of P's object, resolved once per preview. */
static const char *type_of(struct engine *e, struct block_preview *p)
{
    if (p->type_done || !p->has_ref)
        return p->type;
    p->type_done = 1;
    void **slot = u64map_get(&e->ext.mid_index, p->mid);
    if (slot == NULL)
        return NULL;
    const struct module *m = &e->ext.mods[(uintptr_t)*slot - 1];
    p->type = vtable_class(m->path, m->build_id, p->off);
    return p->type;
}

void blockinfo_attach(struct engine *e, struct loss_record *rec,
                      struct block **blocks, size_t n, const size_t *rec_of)
{
    for (size_t i = 0; i < n; i++) {
        struct loss_record *r = &rec[rec_of[i]];
        if (r->cls != CLASS_DEFINITE || r->preview)
            continue;
        struct block_preview *p =
            previews_find(&e->previews, &e->verdicts, blocks[i]);
        if (p) {
            r->preview = p;
            r->type = type_of(e, p);
        }
    }
}

void blockinfo_text(const struct block_preview *p, char *out)
{
    for (unsigned i = 0; i < p->n; i++)
        out[i] = p->bytes[i] >= 0x20 && p->bytes[i] < 0x7f ? (char)p->bytes[i]
                                                           : '.';
    out[p->n] = '\0';
}
