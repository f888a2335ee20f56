/* SPDX-License-Identifier: GPL-3.0-or-later */
/* htmlmore.c - the HTML page's "blocks" member: what the definitely lost
 * blocks of each stack hold (findings/blockinfo.h), shown with the
 * stack's frames in the page's table.  Written only when a loss record
 * has a preview, so a page of a log without "#b" records keeps its data.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/blockinfo.h"
#include "output/html.h"
#include "output/json.h"

static long page_stack(const struct loss_record *r, const long *stack_of,
                       size_t n)
{
    size_t t = (size_t)(r->stack + 1);
    return t < n ? stack_of[t] : -1;
}

/* "blocks": [[page stack, "hex", "text", "type" or null], ...]. */
void html_more_blocks(FILE *o, const struct findings *f, const long *stack_of,
                      size_t n)
{
    size_t k = 0;
    for (size_t i = 0; f->classified && i < f->nrecords; i++) {
        const struct loss_record *r = &f->records[i];
        long s = page_stack(r, stack_of, n);
        if (r->preview == NULL || r->suppressed >= 0 || s < 0)
            continue;
        char text[MTF_PREVIEW_BYTES + 1];
        blockinfo_text(r->preview, text);
        fprintf(o, "%s[%ld,\"", k++ ? ",\n" : ",\n\"blocks\":[", s);
        for (unsigned b = 0; b < r->preview->n; b++)
            fprintf(o, "%02x", r->preview->bytes[b]);
        fputs("\",", o);
        json_cstring(o, text);
        putc(',', o);
        json_cstring(o, r->type);
        putc(']', o);
    }
    if (k)
        putc(']', o);
}
