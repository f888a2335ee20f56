/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livetotals.c - a live log's "#C totals" record (livetotals.h).
 * GPL-3.0-or-later. */
#include "replay/livetotals.h"
#include "mtrace-format.h"
#include "base/diag.h"
#include "read/fields.h"
#include "replay/timeline.h"

int livetotals_is_record(const struct slice *f, size_t nf)
{
    return nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) && slice_eq(f[1], "totals");
}

/* KEY=VALUE in field F: its value into *OUT; 0 when F is not KEY's. */
static int key_number(struct slice f, const char *key, uint64_t *out, int *bad)
{
    struct slice value = field_key_value(f, key);
    if (value.n == 0)
        return 0;
    if (parse_dec_u64(value, out))
        *bad = 1;
    return 1;
}

int livetotals_apply(struct timeline *tl, const char *line, size_t len)
{
    struct slice f[12];
    size_t nf = split_fields(line, len, f, 12);
    uint64_t allocs = 0, alloc_bytes = 0, frees = 0, freed_bytes = 0, peak = 0;
    int bad = 0, seen = 0;
    for (size_t i = 2; i < nf; i++)
        seen += key_number(f[i], "allocs", &allocs, &bad) +
                key_number(f[i], "alloc-bytes", &alloc_bytes, &bad) +
                key_number(f[i], "frees", &frees, &bad) +
                key_number(f[i], "freed-bytes", &freed_bytes, &bad) +
                key_number(f[i], "peak-bytes", &peak, &bad);
    if (bad || seen != 5 || frees > allocs || freed_bytes > alloc_bytes)
        return -1;
    if (tl == NULL)
        return 0;
    tl->allocs = allocs;
    tl->alloc_bytes = alloc_bytes;
    tl->frees = frees;
    tl->freed_bytes = freed_bytes;
    if (peak > tl->peak_bytes) /* the library's, within 64 KiB a thread */
        tl->peak_bytes = peak;
    return 0;
}

void livetotals_note(const char *log)
{
    diag(log, 0,
         "a live log (MEMLEAK_CONFIG=log=live): allocations and peaks by "
         "stack count the blocks it holds (those live at its report "
         "points), not every allocation; the totals are the library's "
         "(#C totals)");
}
