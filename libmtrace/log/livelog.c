/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livelog.c - the lines of a live log (see livelog.h): a survivor's "+",
 * the "-" of its free, the library's totals.  The lines are the full
 * log's (loglines.c formats them), so every reader of the full log reads
 * a live log; they go straight into the shared log, never through a
 * thread's buffer.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "log/livelog.h"
#include "../include/mtrace-format.h"
#include "base/writer.h"
#include "log/tracelog.h"
#include "symbols/stacktab.h"

void livelog_put_alloc(uintptr_t ptr, size_t size, struct stack *s)
{
    struct writer *w = tracelog_locked_writer(s);
    if (w && s)
        tracelog_write_event(w, MTF_OP_ALLOC, (const void *)ptr, size, 1, s,
                             s->depth ? s->frames[0] : NULL);
}

void livelog_put_free(const void *ptr, struct stack *s)
{
    if (!tracelog_logging() || s == NULL)
        return;
    tracelog_direct_lock();
    struct writer *w = tracelog_locked_writer(s);
    if (w)
        tracelog_write_event(w, MTF_OP_FREE, ptr, 0, 0, s, NULL);
    tracelog_direct_unlock();
}

static void put_key(struct writer *w, const char *key, uint64_t v)
{
    writer_putc(w, ' ');
    writer_puts(w, key);
    writer_putc(w, '=');
    writer_dec(w, v);
}

void livelog_put_totals(const struct livelog_totals *t)
{
    struct writer *w = tracelog_locked_writer(NULL);
    if (w == NULL)
        return;
    writer_puts(w, MTF_REC_TOTALS);
    put_key(w, "allocs", t->allocs);
    put_key(w, "alloc-bytes", t->alloc_bytes);
    put_key(w, "frees", t->frees);
    put_key(w, "freed-bytes", t->freed_bytes);
    put_key(w, "peak-bytes", t->peak_bytes);
    writer_putc(w, '\n');
}
