/* SPDX-License-Identifier: GPL-3.0-or-later */
/* records.c - parsing and storing the extension records (see records.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "read/records.h"
#include "read/fields.h"
#include "mtrace-format.h"

#include <stdlib.h>
#include <string.h>

void ext_init(struct ext_store *x)
{
    memset(x, 0, sizeof *x);
    u64map_init(&x->mid_index);
    u64map_init(&x->sid_index);
    u64map_init(&x->abs_names);
    x->last_stack = -1;
}

static void free_name(void *v)
{
    struct frame_name *n = v;
    free(n->name);
    free(n);
}

void ext_destroy(struct ext_store *x)
{
    for (size_t i = 0; i < x->nmods; i++) {
        u64map_each(&x->mods[i].names, free_name);
        u64map_destroy(&x->mods[i].names);
        free(x->mods[i].path);
    }
    for (size_t i = 0; i < x->nstacks; i++)
        free(x->stacks[i].frames);
    free(x->mods);
    free(x->stacks);
    free(x->program);
    free(x->untraced);
    u64map_destroy(&x->mid_index);
    u64map_destroy(&x->sid_index);
    u64map_each(&x->abs_names, free_name);
    u64map_destroy(&x->abs_names);
    memset(x, 0, sizeof *x);
}

/* The text after the first NSKIP fields and the one separator after them:
 * paths and names may contain spaces, so they run to the end of the line. */
static struct slice rest_of_line(const char *line, size_t len, size_t nskip)
{
    size_t i = 0;
    for (size_t f = 0; f < nskip; f++) {
        while (i < len && perl_is_space((unsigned char)line[i]))
            i++;
        while (i < len && !perl_is_space((unsigned char)line[i]))
            i++;
    }
    if (i < len)
        i++;
    return (struct slice){ line + i, len - i };
}

static int32_t module_index(struct ext_store *x, uint64_t mid)
{
    void **slot = u64map_get(&x->mid_index, mid);
    return slot ? (int32_t)((uintptr_t)*slot - 1) : -1;
}

static int valid_build_id(struct slice s)
{
    if (s.n == 0 || s.n > 128 || s.n % 2)
        return 0;
    for (size_t i = 0; i < s.n; i++)
        if (!((s.p[i] >= '0' && s.p[i] <= '9') ||
              (s.p[i] >= 'a' && s.p[i] <= 'f')))
            return 0;
    return 1;
}

/* "#m MID 0xBASE BUILDID PATH" */
static void record_module(struct ext_store *x, const char *line, size_t len,
                          const struct slice *f, size_t nf)
{
    uint64_t mid = 0, base = 0; /* -O3 -flto cannot see the parsers set them */
    struct slice path = rest_of_line(line, len, 4);

    if (nf < 5 || parse_dec_u64(f[1], &mid) || parse_0xhex_u64(f[2], &base) ||
        path.n == 0 || memchr(path.p, '\0', path.n) ||
        x->nmods >= INT32_MAX - 1) {
        x->bad_records++;
        return;
    }
    if (x->nmods == x->cap_mods) {
        x->cap_mods = x->cap_mods ? x->cap_mods * 2 : 16;
        x->mods = xrealloc(x->mods, x->cap_mods * sizeof *x->mods);
    }
    struct module *m = &x->mods[x->nmods];
    memset(m, 0, sizeof *m);
    m->mid = mid;
    m->base = base;
    m->path = xmemdup0(path.p, path.n);
    if (valid_build_id(f[3]))
        memcpy(m->build_id, f[3].p, f[3].n);
    u64map_init(&m->names);
    /* A reused id names the new module from here on. */
    *u64map_put(&x->mid_index, mid) = (void *)(uintptr_t)(x->nmods + 1);
    x->nmods++;
}

/* "#u MID" */
static void record_unload(struct ext_store *x, const struct slice *f, size_t nf)
{
    uint64_t mid = 0;
    int32_t idx;

    if (nf < 2 || parse_dec_u64(f[1], &mid)) {
        x->bad_records++;
        return;
    }
    idx = module_index(x, mid);
    if (idx < 0)
        x->dangling_refs++;
    else
        x->mods[idx].unloaded = 1;
}

static void set_name(struct u64map *names, uint64_t off, uint64_t symoff,
                     struct slice name)
{
    void **slot = u64map_put(names, off);
    if (*slot)
        free_name(*slot);
    struct frame_name *n = xmalloc(sizeof *n);
    n->symoff = symoff;
    n->name = xmemdup0(name.p, name.n);
    *slot = n;
}

/* "#f MID 0xOFF 0xSYMOFF NAME", or "#f - 0xADDR 0xSYMOFF NAME" for a
 * frame outside every module. */
static void record_symbol(struct ext_store *x, const char *line, size_t len,
                          const struct slice *f, size_t nf)
{
    uint64_t mid = 0, off = 0, symoff = 0;
    struct slice name = rest_of_line(line, len, 4);
    int absolute = nf >= 2 && slice_eq(f[1], MTF_NO_MODULE);
    int32_t idx;

    if (nf < 5 || (!absolute && parse_dec_u64(f[1], &mid)) ||
        parse_0xhex_u64(f[2], &off) || parse_0xhex_u64(f[3], &symoff) ||
        name.n == 0 || memchr(name.p, '\0', name.n)) {
        x->bad_records++;
        return;
    }
    if (absolute) {
        set_name(&x->abs_names, off, symoff, name);
        return;
    }
    idx = module_index(x, mid);
    if (idx < 0) {
        x->dangling_refs++;
        return;
    }
    set_name(&x->mods[idx].names, off, symoff, name);
}

/* One "MID:0xOFF" or "-:0xADDR"; returns 0 when well formed. */
static int parse_frame(struct ext_store *x, struct slice s,
                       struct frame_ref *out)
{
    const char *colon = memchr(s.p, ':', s.n);
    uint64_t mid = 0;

    if (!colon)
        return -1;
    struct slice mod = { s.p, (size_t)(colon - s.p) };
    struct slice off = { colon + 1, s.n - mod.n - 1 };
    if (parse_0xhex_u64(off, &out->off))
        return -1;
    if (slice_eq(mod, MTF_NO_MODULE)) {
        out->module = FRAME_NO_MODULE;
        return 0;
    }
    if (parse_dec_u64(mod, &mid))
        return -1;
    out->module = module_index(x, mid);
    if (out->module < 0) {
        out->module = FRAME_UNKNOWN_MODULE;
        x->dangling_refs++;
    }
    return 0;
}

/* The module index of MID, for the frames of one record: the last
 * answer is kept (no "#m" can come between them). */
struct mid_memo {
    int valid;
    uint64_t mid;
    int32_t index;
};

static int32_t memo_module(struct ext_store *x, struct mid_memo *c,
                           uint64_t mid)
{
    if (!c->valid || c->mid != mid) {
        c->valid = 1;
        c->mid = mid;
        c->index = module_index(x, mid);
    }
    return c->index;
}

/* The frames of a "#s" record, the fields from P to END (at most
 * MTF_MAX_DEPTH of them, as split_fields would cut them; the rest are
 * ignored); returns how many were well formed.  "MID:0xOFF" is read in
 * one pass, every other field as parse_frame reads it. */
static uint32_t read_frames(struct ext_store *x, const char *p,
                            const char *end, struct frame_ref *frames)
{
    struct mid_memo memo = { 0, 0, 0 };
    uint32_t n = 0;
    for (size_t fields = 0; fields < MTF_MAX_DEPTH; fields++) {
        while (p < end && perl_is_space((unsigned char)*p))
            p++;
        if (p == end)
            break;
        uint64_t mid;
        const char *next;
        if (parse_frame_field(p, end, &mid, &frames[n].off, &next)) {
            frames[n].module = memo_module(x, &memo, mid);
            if (frames[n].module < 0) {
                frames[n].module = FRAME_UNKNOWN_MODULE;
                x->dangling_refs++;
            }
            n++;
            p = next;
            continue;
        }
        struct slice f = { p, 0 };
        split_fields(p, (size_t)(end - p), &f, 1);
        if (parse_frame(x, f, &frames[n]) == 0)
            n++;
        else
            x->bad_records++;
        p = f.p + f.n;
    }
    return n;
}

/* "#s SID FRAME..." */
static void record_stack(struct ext_store *x, const char *line, size_t len)
{
    struct slice f[2];
    size_t nf = split_fields(line, len, f, 2);
    uint64_t sid;

    if (nf < 2 || parse_dec_u64(f[1], &sid) || x->nstacks >= INT32_MAX - 1) {
        x->bad_records++;
        return;
    }
    struct frame_ref buf[MTF_MAX_DEPTH];
    uint32_t n = read_frames(x, f[1].p + f[1].n, line + len, buf);
    struct frame_ref *frames = xmalloc((n + 1) * sizeof *frames);
    memcpy(frames, buf, n * sizeof *frames);
    if (x->nstacks == x->cap_stacks) {
        x->cap_stacks = x->cap_stacks ? x->cap_stacks * 2 : 64;
        x->stacks = xrealloc(x->stacks, x->cap_stacks * sizeof *x->stacks);
    }
    for (uint32_t i = 0; i < n && x->prefetch; i++) {
        struct module *m = frames[i].module >= 0 ? &x->mods[frames[i].module]
                                                 : NULL;
        if (m && !m->prefetched) {
            m->prefetched = 1;
            /* Return addresses: the call is the byte before. */
            x->prefetch(m->path, frames[i].off ? frames[i].off - 1 : 0);
        }
    }
    x->stacks[x->nstacks] = (struct stack){ sid, n, frames };
    *u64map_put(&x->sid_index, sid) = (void *)(uintptr_t)(x->nstacks + 1);
    x->nstacks++;
    if (sid == x->last_sid)
        x->last_stack = -1;
}

/* "#v VERSION key=value...": the keys read here are sample= (a sampled
 * log), log= (a live log), untraced= (nothing was traced, doc/format.md), pid= and ppid=
 * (valgrind's ==PID== prefix, vgreport.h); the others are for people. */
static void record_version(struct ext_store *x, const char *line, size_t len)
{
    struct slice f[32];
    size_t nf = split_fields(line, len, f, 32);
    x->extended = 1;
    if (nf < 2 || parse_dec_u64(f[1], &x->version))
        x->bad_records++;
    for (size_t i = 2; i < nf; i++) {
        struct slice v = field_key_value(f[i], MTF_KEY_SAMPLE);
        if (v.n && parse_dec_u64(v, &x->sample_rate))
            x->sample_rate = 0;
        v = field_key_value(f[i], "pid");
        if (v.n && parse_dec_u64(v, &x->pid))
            x->pid = 0;
        v = field_key_value(f[i], "ppid");
        if (v.n && parse_dec_u64(v, &x->ppid))
            x->ppid = 0;
        v = field_key_value(f[i], MTF_KEY_LOG);
        if (v.n)
            x->live_log = v.n == strlen(MTF_LOG_LIVE) &&
                          memcmp(v.p, MTF_LOG_LIVE, v.n) == 0;
        v = field_key_value(f[i], MTF_KEY_UNTRACED);
        if (v.n && x->untraced == NULL)
            x->untraced = xmemdup0(v.p, v.n);
    }
}

static void record_program(struct ext_store *x, const char *line, size_t len)
{
    struct slice path = rest_of_line(line, len, 1);
    if (path.n == 0 || memchr(path.p, '\0', path.n)) {
        x->bad_records++;
        return;
    }
    free(x->program);
    x->program = xmemdup0(path.p, path.n);
}

void ext_record(struct ext_store *x, const char *line, size_t len,
                const struct slice *f, size_t nf)
{
    if (slice_eq(f[0], MTF_REC_VERSION))
        record_version(x, line, len);
    else if (slice_eq(f[0], MTF_REC_PROGRAM))
        record_program(x, line, len);
    else if (slice_eq(f[0], MTF_REC_MODULE))
        record_module(x, line, len, f, nf);
    else if (slice_eq(f[0], MTF_REC_UNLOAD))
        record_unload(x, f, nf);
    else if (slice_eq(f[0], MTF_REC_SYMBOL))
        record_symbol(x, line, len, f, nf);
    else if (slice_eq(f[0], MTF_REC_STACK))
        record_stack(x, line, len);
    /* "# text" comments and unknown records are ignored. */
}

int32_t ext_stack_ref(struct ext_store *x, struct slice field)
{
    uint64_t sid;

    if (field.n < 2 || field.p[0] != MTF_STACK_FIELD_PREFIX)
        return -1;
    if (parse_dec_u64((struct slice){ field.p + 1, field.n - 1 }, &sid))
        return -1;
    if (x->last_stack >= 0 && sid == x->last_sid)
        return x->last_stack;
    void **slot = u64map_get(&x->sid_index, sid);
    if (!slot) {
        x->dangling_refs++;
        return -1;
    }
    x->last_sid = sid;
    x->last_stack = (int32_t)((uintptr_t)*slot - 1);
    return x->last_stack;
}

const struct frame_name *ext_frame_name(struct module *m, uint64_t off)
{
    void **slot = u64map_get(&m->names, off);
    return slot ? *slot : NULL;
}

const struct frame_name *ext_absolute_name(struct ext_store *x, uint64_t addr)
{
    void **slot = u64map_get(&x->abs_names, addr);
    return slot ? *slot : NULL;
}
