/* SPDX-License-Identifier: GPL-3.0-or-later */
/* blockout.c - what a definitely lost block holds, as the text report and
 * the JSON show it under its loss record (findings/blockinfo.h): the
 * first bytes in hex and as text, the object's C++ class.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/blockinfo.h"
#include "output/json.h"
#include "output/writer.h"

void report_text_block(FILE *out, const struct loss_record *r)
{
    const struct block_preview *p = r->preview;
    if (p == NULL)
        return;
    char text[MTF_PREVIEW_BYTES + 1];
    blockinfo_text(p, text);
    fprintf(out, "  first %u bytes:", p->n);
    for (unsigned i = 0; i < p->n; i++)
        fprintf(out, " %02x", p->bytes[i]);
    fprintf(out, "  |%s|\n", text);
    if (r->type)
        fprintf(out, "  type %s (from its vtable)\n", r->type);
}

void report_json_block(FILE *out, const struct loss_record *r)
{
    const struct block_preview *p = r->preview;
    if (p == NULL)
        return;
    char text[MTF_PREVIEW_BYTES + 1];
    blockinfo_text(p, text);
    fputs(",\"preview\":{\"hex\":\"", out);
    for (unsigned i = 0; i < p->n; i++)
        fprintf(out, "%02x", p->bytes[i]);
    fputs("\",\"text\":", out);
    json_cstring(out, text);
    fputs("},\"type\":", out);
    json_cstring(out, r->type);
}
