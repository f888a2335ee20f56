/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verdict.c - see verdict.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/verdict.h"
#include "read/fields.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

struct verdict_entry {
    uint64_t scan_line; /* of the "#C scan" it belongs to */
    uint64_t indirect;
    enum leak_class cls;
};

void verdicts_init(struct verdicts *v)
{
    memset(v, 0, sizeof *v);
    u64map_init(&v->by_addr);
}

static void forget_entries(struct verdicts *v)
{
    u64map_each(&v->by_addr, free);
    u64map_destroy(&v->by_addr);
    u64map_init(&v->by_addr);
}

void verdicts_destroy(struct verdicts *v)
{
    u64map_each(&v->by_addr, free);
    u64map_destroy(&v->by_addr);
    for (size_t i = 0; i < v->nsuppressions; i++)
        free(v->suppressions[i]);
    free(v->suppressions);
    memset(v, 0, sizeof *v);
}

#define MAX_FIELDS 24

static void read_scan(struct verdicts *v, const struct slice *f, size_t nf,
                      uint64_t nr)
{
    forget_entries(v);
    v->scans++;
    v->scan_line = nr;
    memset(&v->last, 0, sizeof v->last);
    static const struct {
        const char *key;
        size_t offset;
    } keys[] = {
        { "threads", offsetof(struct scan_info, threads) },
        { "stopped", offsetof(struct scan_info, stopped) },
        { "unstopped", offsetof(struct scan_info, unstopped) },
        { "blocks", offsetof(struct scan_info, blocks) },
        { "scanned", offsetof(struct scan_info, scanned) },
        { "us", offsetof(struct scan_info, us) },
    };
    for (size_t i = 2; i < nf; i++) {
        const char *eq = memchr(f[i].p, '=', f[i].n);
        if (eq == NULL)
            continue;
        struct slice key = { f[i].p, (size_t)(eq - f[i].p) };
        struct slice val = { eq + 1, f[i].n - key.n - 1 };
        if (key.n == 7 && memcmp(key.p, "trigger", 7) == 0 &&
            val.n < sizeof v->last.trigger) {
            memcpy(v->last.trigger, val.p, val.n);
            v->last.trigger[val.n] = '\0';
        }
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (strlen(keys[k].key) == key.n &&
                memcmp(keys[k].key, key.p, key.n) == 0)
                parse_dec_u64(val,
                              (uint64_t *)((char *)&v->last + keys[k].offset));
    }
}

static void read_suppression(struct verdicts *v, const struct slice *f,
                             size_t nf)
{
    if (nf != 3 || f[2].n <= 5 || memcmp(f[2].p, "leak:", 5) != 0) {
        v->bad_records++;
        return;
    }
    struct slice pat = { f[2].p + 5, f[2].n - 5 };
    for (size_t i = 0; i < v->nsuppressions; i++)
        if (strlen(v->suppressions[i]) == pat.n &&
            memcmp(v->suppressions[i], pat.p, pat.n) == 0)
            return;
    v->suppressions = xrealloc(v->suppressions, (v->nsuppressions + 1) *
                                                    sizeof *v->suppressions);
    v->suppressions[v->nsuppressions++] = xmemdup0(pat.p, pat.n);
}

enum leak_class verdict_class_of_letter(struct slice s)
{
    if (s.n != 1)
        return CLASS_UNKNOWN;
    switch (s.p[0]) {
    case MTF_VERDICT_DEFINITE:
        return CLASS_DEFINITE;
    case MTF_VERDICT_INDIRECT:
        return CLASS_INDIRECT;
    case MTF_VERDICT_POSSIBLE:
        return CLASS_POSSIBLE;
    case MTF_VERDICT_REACHABLE:
        return CLASS_REACHABLE;
    }
    return CLASS_UNKNOWN;
}

static void read_verdict(struct verdicts *v, const struct slice *f, size_t nf)
{
    enum leak_class cls = nf >= 3 ? verdict_class_of_letter(f[2]) : CLASS_UNKNOWN;
    uint64_t addr, indirect = 0;
    if (v->scans == 0 || cls == CLASS_UNKNOWN || nf > 4 ||
        parse_0xhex_u64(f[1], &addr) ||
        (nf == 4 && parse_dec_u64(f[3], &indirect))) {
        v->bad_records++;
        return;
    }
    void **slot = u64map_put(&v->by_addr, addr);
    struct verdict_entry *e = *slot;
    if (e == NULL)
        *slot = e = xcalloc(1, sizeof *e);
    e->scan_line = v->scan_line;
    e->cls = cls;
    e->indirect = indirect;
}

void verdicts_record(struct verdicts *v, const char *line, size_t len,
                     uint64_t nr)
{
    struct slice f[MAX_FIELDS];
    size_t nf = split_fields(line, len, f, MAX_FIELDS);
    if (nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) &&
        slice_eq(f[1], MTF_SCAN_KEYWORD))
        read_scan(v, f, nf, nr);
    else if (nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) &&
             slice_eq(f[1], MTF_SUPPRESSION_KEYWORD))
        read_suppression(v, f, nf);
    else if (nf >= 2 && slice_eq(f[0], MTF_REC_VERDICT))
        read_verdict(v, f, nf);
    else if (nf >= 2 && slice_eq(f[0], MTF_REC_SCAN) &&
             slice_eq(f[1], MTF_COST_KEYWORD))
        ; /* a scan's cost: scanseries.h reads it */
    else
        v->bad_records++;
}

enum leak_class verdicts_class(const struct verdicts *v, const struct block *b,
                               uint64_t *indirect)
{
    *indirect = 0;
    if (v->scans == 0)
        return CLASS_UNKNOWN;
    /* Allocated after the last scan: not classified (this takes in the
     * rare block whose "+" line came after its scan's records). */
    if (b->line > v->scan_line)
        return CLASS_UNKNOWN;
    /* Allocated before it and live at the end: the block the scan saw. */
    void **slot = u64map_get((struct u64map *)&v->by_addr,
                             perl_hex(block_key(b)));
    const struct verdict_entry *e = slot ? *slot : NULL;
    if (e) {
        *indirect = e->indirect;
        return e->cls;
    }
    return CLASS_REACHABLE;
}

const char *class_name(enum leak_class c)
{
    static const char *const names[CLASS_COUNT] = {
        "unknown", "still-reachable", "possibly-lost", "indirectly-lost",
        "definitely-lost"
    };
    return names[c];
}

const char *class_words(enum leak_class c)
{
    static const char *const words[CLASS_COUNT] = {
        "not classified", "still reachable", "possibly lost", "indirectly lost",
        "definitely lost"
    };
    return words[c];
}

int class_mask_parse(const char *list)
{
    static const struct {
        const char *word;
        int mask;
    } words[] = {
        { "definite", 1 << CLASS_DEFINITE },
        { "indirect", 1 << CLASS_INDIRECT },
        { "possible", 1 << CLASS_POSSIBLE },
        { "reachable", 1 << CLASS_REACHABLE },
        { "unknown", 1 << CLASS_UNKNOWN },
        { "none", 0 },
        { "all", (1 << CLASS_COUNT) - 1 },
    };
    int mask = 0;
    while (*list) {
        size_t n = strcspn(list, ",");
        int found = 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i].word) == n &&
                strncmp(words[i].word, list, n) == 0) {
                mask |= words[i].mask;
                found = 1;
            }
        if (!found)
            return -1;
        list += n;
        if (*list == ',')
            list++;
    }
    return mask;
}
