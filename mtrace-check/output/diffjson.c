/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diffjson.c - the JSON writer's --diff mode (json_diff, writer.h): one
 * object with the arrays "new", "gone" and "grown" of loss records in the
 * shape of "loss_records" (doc/json.md, "Comparing two runs"); a grown
 * record adds "old_bytes" and "old_blocks".
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/json.h"
#include "output/writer.h"

#include <inttypes.h>

static void list(FILE *out, const char *name, const struct findings *f,
                 const struct diff_entry *v, size_t n, int from_old)
{
    fprintf(out, ",\n\"%s\":[", name);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", out);
        report_json_record(out, f, from_old ? v[i].old : v[i].new);
    }
    putc(']', out);
}

static void grown(FILE *out, const struct findings_diff *d)
{
    fputs(",\n\"grown\":[", out);
    for (size_t i = 0; i < d->ngrown; i++) {
        const struct diff_entry *e = &d->grown[i];
        fputs(i ? ",\n" : "\n", out);
        report_json_record_open(out, d->new, e->new);
        fprintf(out, ",\"old_bytes\":%" PRIu64 ",\"old_blocks\":%" PRIu64 "}",
                e->old->bytes, e->old->blocks);
    }
    putc(']', out);
}

int json_diff(struct writer *w, const struct findings_diff *d)
{
    FILE *out = w->out;
    fputs("{\"tool\":\"mtrace-check\",\"schema\":1,\"diff\":{\"old\":", out);
    json_cstring(out, d->old->log);
    fputs(",\"new\":", out);
    json_cstring(out, d->new->log);
    fputs("},\"binary\":", out);
    json_cstring(out, w->binary);
    list(out, "new", d->new, d->added, d->nadded, 0);
    list(out, "gone", d->old, d->gone, d->ngone, 1);
    grown(out, d);
    fprintf(out, ",\n\"failing\":%s}\n", d->failing ? "true" : "false");
    return ferror(out) ? -1 : 0;
}
