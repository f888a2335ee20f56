/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rss.c - resident memory samples of the "#t" records (see rss.h).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "replay/rss.h"
#include "read/fields.h"
#include "mtrace-format.h"

/* FIELD is "KEY=DECIMAL": its value into *V. */
static int key_value(struct slice field, const char *key, uint64_t *v)
{
    struct slice value = field_key_value(field, key);
    return value.n ? parse_dec_u64(value, v) : -1;
}

int rss_parse(const struct slice *f, size_t nf, uint64_t *anon, uint64_t *file)
{
    uint64_t a = 0, b = 0;
    int got = 0;
    for (size_t i = 2; i < nf; i++) {
        if (key_value(f[i], MTF_KEY_RSS_ANON, &a) == 0)
            got |= 1;
        else if (key_value(f[i], MTF_KEY_RSS_FILE, &b) == 0)
            got |= 2;
    }
    if (got != 3)
        return -1;
    *anon = a;
    *file = b;
    return 0;
}

void rss_record(struct rss_stats *r, const struct slice *f, size_t nf)
{
    uint64_t anon, file, ns;
    if (nf < 2 || parse_dec_u64(f[1], &ns) || rss_parse(f, nf, &anon, &file))
        return;
    if (r->samples++ == 0 || anon + file > r->peak_anon + r->peak_file) {
        r->peak_anon = anon;
        r->peak_file = file;
        r->peak_ns = ns;
    }
}
