/* SPDX-License-Identifier: GPL-3.0-or-later */
/* difftext.c - the text writer's --diff mode (text_diff, writer.h): the
 * loss records new in NEW, gone since OLD and grown, each with its class,
 * sizes, allocation stack and fingerprint, then a one-line summary.
 * doc/mtrace-check.1 and README.md show it.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/writer.h"
#include "output/vgreport.h"

#include <inttypes.h>

static const char *class_of(const struct loss_record *r)
{
    return r->classified ? class_words(r->cls) : "leaked (no verdicts)";
}

static void frames(FILE *out, const struct loss_record *r)
{
    report_text_stack(out, r);
    fprintf(out, "  fingerprint %s\n", r->fingerprint);
}

/* "40 bytes in 1 blocks are definitely lost", from one log. */
static void one(FILE *out, const struct loss_record *r, const char *what)
{
    char a[32], b[32];
    fprintf(out, "\n%s bytes in %s blocks %s %s (%s)\n", vg_commas(r->bytes, a),
            vg_commas(r->blocks, b), what, class_of(r),
            what[0] == 'a' ? "new" : "gone");
    frames(out, r);
}

/* "96 bytes (was 32) in 3 blocks (was 1) are definitely lost". */
static void grown(FILE *out, const struct diff_entry *e)
{
    char a[32], b[32], c[32], d[32];
    fprintf(out,
            "\n%s bytes (was %s) in %s blocks (was %s) are %s (grown by "
            "%" PRIu64 " bytes)\n",
            vg_commas(e->new->bytes, a), vg_commas(e->old->bytes, b),
            vg_commas(e->new->blocks, c), vg_commas(e->old->blocks, d),
            class_of(e->new),
            e->new->bytes > e->old->bytes ? e->new->bytes - e->old->bytes : 0);
    frames(out, e->new);
}

static void heading(FILE *out, const char *what, size_t n, const char *log)
{
    fprintf(out, "\n%s %s: %zu loss record%s\n", what, log, n,
            n == 1 ? "" : "s");
}

int text_diff(struct writer *w, const struct findings_diff *d)
{
    FILE *out = w->out;
    fprintf(out,
            "Comparing %s (old) with %s (new): loss records matched by "
            "class and fingerprint\n",
            d->old->log, d->new->log);
    heading(out, "New in", d->nadded, d->new->log);
    for (size_t i = 0; i < d->nadded; i++)
        one(out, d->added[i].new, "are");
    heading(out, "Gone since", d->ngone, d->old->log);
    for (size_t i = 0; i < d->ngone; i++)
        one(out, d->gone[i].old, "were");
    heading(out, "Grown in", d->ngrown, d->new->log);
    for (size_t i = 0; i < d->ngrown; i++)
        grown(out, &d->grown[i]);
    fprintf(out, "\nDIFF SUMMARY: %zu new, %zu gone, %zu grown%s\n",
            d->nadded, d->ngone, d->ngrown,
            d->failing ? " (new leaks of the --fail-on classes)" : "");
    return ferror(out) ? -1 : 0;
}
