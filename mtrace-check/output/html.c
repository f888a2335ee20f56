/* SPDX-License-Identifier: GPL-3.0-or-later */
/* html.c - writes the HTML report (see html.h).
 *
 * The page is the template html/page.html with its three markers replaced:
 * the style sheet, the script, and the data.  The data is JSON written
 * with json.h into memory, then copied with every '<' escaped as \u003c
 * (it only occurs inside strings), so no text from the log can end the
 * <script> block it sits in.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#define _GNU_SOURCE /* open_memstream */
#include "output/html.h"
#include "output/growthhtml.h"
#include "base/diag.h"
#include "output/folded.h"
#include "output/json.h"
#include "output/resout.h"
#include "output/writer.h"
#include "symbolize/stackview.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

extern const char mtc_page_html_start[], mtc_page_css_start[],
    mtc_page_js_start[], mtc_page_format_js_start[];

/* ---- strings and frames, each written once ----------------------------- */

struct interned {
    struct strmap index; /* string -> index + 1 */
    char **items;
    size_t n, cap;
};

static void intern_init(struct interned *t)
{
    memset(t, 0, sizeof *t);
    strmap_init(&t->index);
}

static void intern_destroy(struct interned *t)
{
    strmap_destroy(&t->index);
    free(t->items);
}

/* Index of S (kept by pointer: the caller's strings outlive the table). */
static long intern(struct interned *t, const char *s, size_t len)
{
    void **slot = strmap_put(&t->index, (struct slice){ s, len });
    if (*slot == NULL) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 256;
            t->items = xrealloc(t->items, t->cap * sizeof *t->items);
        }
        t->items[t->n] = (char *)s;
        *slot = (void *)(uintptr_t)++t->n;
    }
    return (long)(uintptr_t)*slot - 1;
}

struct frame_info {
    char *label;           /* folded_label(), owned */
    int64_t file, module;  /* string indexes, -1: none */
    int64_t line, inlined; /* written as JSON columns */
    uint64_t off;
};

struct page {
    struct interned files, modules, frame_keys;
    struct strmap by_view; /* a view_frame's bytes -> frame index + 1 */
    struct frame_info *frames;
    size_t nframes, cap_frames;
    /* The stacks written, by index into the timeline's stacks. */
    size_t *which;
    size_t nwhich;
    long *stack_of; /* timeline stack index -> written index, or -1 */
    size_t nstack_of;
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* A frame is known by its label and source line: calls from different
 * lines of one function are different boxes, as in memray. */
static long new_frame_index(struct page *pg, const struct view_frame *f)
{
    char label[1024], key[1200];
    folded_label(f, label, sizeof label);
    int n = snprintf(key, sizeof key, "%s%c%s:%u", label, 0,
                     f->file ? f->file : "", f->line);
    size_t len = n < 0                    ? 0
                 : (size_t)n < sizeof key ? (size_t)n
                                          : sizeof key - 1;
    size_t before = pg->frame_keys.n;
    char *copy = xmemdup0(key, len);
    long i = intern(&pg->frame_keys, copy, len);
    if ((size_t)i < before) {
        free(copy);
        return i;
    }
    if (pg->nframes == pg->cap_frames) {
        pg->cap_frames = pg->cap_frames ? pg->cap_frames * 2 : 1024;
        pg->frames = xrealloc(pg->frames, pg->cap_frames * sizeof *pg->frames);
    }
    struct frame_info *fi = &pg->frames[pg->nframes++];
    fi->label = xstrdup(label);
    fi->file = f->file ? intern(&pg->files, f->file, strlen(f->file)) : -1;
    fi->module = -1;
    if (f->module) {
        const char *b = base_name(f->module);
        fi->module = intern(&pg->modules, b, strlen(b));
    }
    fi->line = f->line;
    fi->off = f->off;
    fi->inlined = f->inlined;
    return i;
}

/* The same return address in many stacks: its view (the symbolizer's
 * strings, by pointer) is looked up without formatting its label. */
static long frame_index(struct page *pg, const struct view_frame *f)
{
    struct view_frame key;
    memset(&key, 0, sizeof key); /* padding too: the bytes are the key */
    key.function = f->function;
    key.file = f->file;
    key.line = f->line;
    key.module = f->module;
    key.unknown_module = f->unknown_module;
    key.off = f->off;
    key.inlined = f->inlined;
    void **slot = strmap_put(&pg->by_view,
                             (struct slice){ (char *)&key, sizeof key });
    if (*slot == NULL)
        *slot = (void *)(uintptr_t)(new_frame_index(pg, f) + 1);
    return (long)(uintptr_t)*slot - 1;
}

/* ---- JSON pieces ------------------------------------------------------- */

/* fprintf costs more than everything else here on a big log. */
static void put_u64(FILE *o, uint64_t v)
{
    char buf[24], *p = buf + sizeof buf;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    fwrite(p, 1, (size_t)(buf + sizeof buf - p), o);
}

static void put_i64(FILE *o, int64_t v)
{
    if (v < 0) {
        putc('-', o);
        put_u64(o, (uint64_t)-v);
    } else {
        put_u64(o, (uint64_t)v);
    }
}

/* ",v" or "v" */
static void put_item(FILE *o, size_t i, int64_t v)
{
    if (i)
        putc(',', o);
    put_i64(o, v);
}

static void put_uitem(FILE *o, size_t i, uint64_t v)
{
    if (i)
        putc(',', o);
    put_u64(o, v);
}

static void u64_array(FILE *o, const char *name, const struct page *pg,
                      const struct timeline *tl, size_t field_offset)
{
    fprintf(o, ",\"%s\":[", name);
    for (size_t i = 0; i < pg->nwhich; i++) {
        uint64_t v = 0; /* a stack of other blocks only: no timeline */
        if (pg->which[i] < tl->nstacks)
            memcpy(&v, (const char *)&tl->stacks[pg->which[i]] + field_offset,
                   sizeof v);
        put_uitem(o, i, v);
    }
    putc(']', o);
}

/* The kind of the blocks of timeline stack T when they are not malloc's
 * (a pool's, mappings: xblocks.h), else KIND_MALLOC.  Such stacks are in
 * no timeline: they come from the loss records. */
static enum block_kind other_kind(const struct findings *f, size_t t)
{
    for (size_t i = 0; f->classified && i < f->nrecords; i++)
        if (f->records[i].kind != KIND_MALLOC &&
            (size_t)(f->records[i].stack + 1) == t)
            return f->records[i].kind;
    return KIND_MALLOC;
}

/* Loss records of blocks that are not malloc's exist. */
static int any_other_kind(const struct findings *f)
{
    for (size_t i = 0; f->classified && i < f->nrecords; i++)
        if (f->records[i].kind != KIND_MALLOC)
            return 1;
    return 0;
}

/* "kind": per stack, "pool" or "mmap" for the blocks that are not
 * malloc's, "" for malloc's; only in a log that has such blocks. */
static void write_kinds(FILE *o, const struct findings *f,
                        const struct page *pg)
{
    if (!any_other_kind(f))
        return;
    fputs(",\n\"kind\":[", o);
    for (size_t i = 0; i < pg->nwhich; i++) {
        enum block_kind k = other_kind(f, pg->which[i]);
        fprintf(o, "%s\"%s\"", i ? "," : "",
                k == KIND_MALLOC ? "" : block_kind_name(k));
    }
    putc(']', o);
}

static void write_stacks(FILE *o, const struct findings *f, const struct timeline *tl,
                         struct page *pg)
{
    struct view_frames vf = { 0 };
    fputs(",\n\"stacks\":{\"sid\":[", o);
    for (size_t i = 0; i < pg->nwhich; i++) {
        long st = (long)pg->which[i] - 1;
        if (st < 0)
            fprintf(o, "%snull", i ? "," : "");
        else
            fprintf(o, "%s%" PRIu64, i ? "," : "", f->stacks->stacks[st].sid);
    }
    fputs("],\n\"frames\":[", o);
    for (size_t i = 0; i < pg->nwhich; i++) {
        long st = (long)pg->which[i] - 1;
        fputs(i ? ",[" : "[", o);
        if (st >= 0) {
            view_stack(f->stacks, &f->stacks->stacks[st], &vf);
            /* Root first, as the flame graph draws it. */
            for (size_t k = vf.n; k-- > 0;)
                put_item(o, k + 1 < vf.n, frame_index(pg, &vf.v[k]));
        }
        putc(']', o);
    }
    putc(']', o);
    free(vf.v);
    write_kinds(o, f, pg);
#define FIELD(name, member)                                                    \
    u64_array(o, name, pg, tl, offsetof(struct tl_stack, member))
    FIELD("leak_b", live_bytes);
    FIELD("leak_n", live_blocks);
    FIELD("peak_b", peak_bytes);
    FIELD("peak_n", peak_blocks);
    FIELD("all_b", alloc_bytes);
    FIELD("all_n", allocs);
#undef FIELD
    fputs("}", o);
}

static void string_list(FILE *o, const char *name, const struct interned *t)
{
    fprintf(o, ",\n\"%s\":[", name);
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            putc(',', o);
        json_cstring(o, t->items[i]);
    }
    putc(']', o);
}

/* ",NAME:[...]": one int64_t field of every frame. */
static void frame_column(FILE *o, const char *name, const struct page *pg,
                         size_t field_offset)
{
    fprintf(o, ",\"%s\":[", name);
    for (size_t i = 0; i < pg->nframes; i++) {
        int64_t v;
        memcpy(&v, (const char *)&pg->frames[i] + field_offset, sizeof v);
        put_item(o, i, v);
    }
    putc(']', o);
}

static void write_frames(FILE *o, const struct page *pg)
{
    string_list(o, "files", &pg->files);
    string_list(o, "modules", &pg->modules);
    fputs(",\n\"frames\":{\"name\":[", o);
    for (size_t i = 0; i < pg->nframes; i++) {
        if (i)
            putc(',', o);
        json_cstring(o, pg->frames[i].label);
    }
    putc(']', o);
    frame_column(o, "file", pg, offsetof(struct frame_info, file));
    frame_column(o, "line", pg, offsetof(struct frame_info, line));
    frame_column(o, "module", pg, offsetof(struct frame_info, module));
    frame_column(o, "inl", pg, offsetof(struct frame_info, inlined));
    fputs(",\"off\":[", o);
    for (size_t i = 0; i < pg->nframes; i++)
        put_uitem(o, i, pg->frames[i].off);
    fputs("]}", o);
}

static double to_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static void write_series(FILE *o, const struct timeline *tl)
{
    size_t n = tl_nbuckets(tl);
    fprintf(o, ",\n\"series\":{\"never\":%d,\"line\":[", TL_NEVER);
    for (size_t i = 0; i < n; i++)
        put_uitem(o, i, tl->buckets[i].line_end);
    fputs("],\"live\":[", o);
    for (size_t i = 0; i < n; i++)
        put_uitem(o, i, tl->buckets[i].live_end);
    fputs("],\"max\":[", o);
    for (size_t i = 0; i < n; i++)
        put_uitem(o, i, tl->buckets[i].live_max);
    fputs("],\"t\":", o);
    if (!tl->has_time) {
        fputs("null}", o);
        return;
    }
    putc('[', o);
    for (size_t i = 0; i < n; i++)
        fprintf(o, "%s%.3f", i ? "," : "", to_ms(tl->buckets[i].t_end));
    fputs("]}", o);
}

static void write_intervals(FILE *o, const struct timeline *tl,
                            const struct page *pg)
{
    fputs(",\n\"intervals\":[", o);
    int first = 1;
    for (size_t i = 0; i < tl->niv; i++) {
        const struct tl_interval *v = &tl->iv[i];
        long s = pg->stack_of[v->stack];
        if (s < 0)
            continue;
        put_item(o, !first, s);
        put_item(o, 1, v->alloc);
        put_item(o, 1, v->freed);
        put_uitem(o, 1, v->bytes);
        put_uitem(o, 1, v->blocks);
        first = 0;
    }
    putc(']', o);
}

static void write_summary(FILE *o, const struct findings *f, const struct timeline *tl,
                          const struct page *pg)
{
    size_t leak_stacks = 0;
    for (size_t i = 0; i < pg->nwhich; i++) /* other blocks' stacks: past */
        leak_stacks += pg->which[i] < tl->nstacks &&
                       tl->stacks[pg->which[i]].live_blocks > 0;
    fprintf(o,
            ",\n\"summary\":{\"lines\":%" PRIu64 ",\"warnings\":%" PRIu64
            ",\"extended\":%s,\"allocs\":%" PRIu64 ",\"alloc_bytes\":%" PRIu64
            ",\"frees\":%" PRIu64 ",\"freed_bytes\":%" PRIu64
            ",\"live_bytes\":%" PRIu64 ",\"live_blocks\":%" PRIu64
            ",\"leak_stacks\":%zu,\"peak_bytes\":%" PRIu64
            ",\"peak_blocks\":%" PRIu64 ",\"peak_line\":%" PRIu64
            ",\"has_time\":%s",
            f->totals.lines, f->totals.warnings, f->extended ? "true" : "false", tl->allocs,
            tl->alloc_bytes, tl->frees, tl->freed_bytes, tl->live_bytes,
            tl->live_blocks, leak_stacks, tl->peak_bytes, tl->peak_blocks,
            tl->peak_line, tl->has_time ? "true" : "false");
    if (tl->has_time)
        fprintf(o, ",\"peak_t\":%.3f,\"duration\":%.3f}", to_ms(tl->peak_t),
                to_ms(tl->t_last));
    else
        fputs(",\"peak_t\":null,\"duration\":null}", o);
}

/* What the text report says of the log's end (logend_text): that it ends
 * early, or was killed by a signal, and that what is live there is not a
 * proven leak; "" when it says nothing.  The page shows it above the
 * summary, in the same words. */
static void write_log_end(FILE *o, const struct findings *f,
                          const struct timeline *tl)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = f->extended ? open_memstream(&text, &len) : NULL;
    if (m) {
        logend_text(m, f, tl->live_blocks, tl->live_bytes);
        fclose(m);
    }
    fprintf(o, ",\n\"complete\":%s,\"end_note\":",
            !f->extended ? "null" : f->end->seen ? "true" : "false");
    json_cstring(o, text ? text : "");
    free(text);
}

/* ---- reachability classes --------------------------------------------- */

/* The summary's order (the LEAK SUMMARY's); "lost" marks what the page
 * calls leaks (class_is_leak). */
static const enum leak_class page_classes[] = {
    CLASS_DEFINITE,  CLASS_INDIRECT, CLASS_POSSIBLE,
    CLASS_REACHABLE, CLASS_UNKNOWN,
};
enum { PAGE_SUPPRESSED = sizeof page_classes / sizeof page_classes[0] };

static void put_class(FILE *o, size_t i, const char *key, const char *name,
                      int lost, const struct class_sum *sum)
{
    fputs(i ? ",\n{\"key\":" : "\n{\"key\":", o);
    json_cstring(o, key);
    fputs(",\"name\":", o);
    json_cstring(o, name);
    fputs(lost ? ",\"lost\":true,\"bytes\":" : ",\"lost\":false,\"bytes\":", o);
    put_u64(o, sum->bytes);
    fputs(",\"blocks\":", o);
    put_u64(o, sum->blocks);
    putc('}', o);
}

/* "classes": the totals of --json's totals.classes, under the same keys,
 * and "loss": the loss records as [stack, class, bytes, blocks] runs,
 * the class an index into "classes" (suppressed records: the last).
 * Both empty when the log was not reported by class. */
static void write_classes(FILE *o, const struct findings *f,
                          const struct page *pg)
{
    fputs(",\n\"classes\":[", o);
    if (f->classified) {
        const struct class_sums *s = &f->sums;
        for (size_t i = 0; i < PAGE_SUPPRESSED; i++) {
            enum leak_class c = page_classes[i];
            put_class(o, i, class_key(c), class_words(c), class_is_leak(c),
                      &s->sum[c]);
        }
        put_class(o, PAGE_SUPPRESSED, "suppressed", "suppressed", 0,
                  &s->suppressed);
    }
    fputs("],\n\"loss\":[", o);
    size_t n = f->classified ? f->nrecords : 0;
    for (size_t i = 0, k = 0; i < n; i++) {
        const struct loss_record *r = &f->records[i];
        size_t t = (size_t)(r->stack + 1);
        long s = t < pg->nstack_of ? pg->stack_of[t] : -1;
        if (s < 0) /* cannot be: its blocks went through the timeline */
            continue;
        size_t slot = PAGE_SUPPRESSED;
        for (size_t c = 0; r->suppressed < 0 && c < PAGE_SUPPRESSED; c++)
            if (page_classes[c] == r->cls)
                slot = c;
        put_item(o, k++, s);
        put_uitem(o, 1, slot);
        put_uitem(o, 1, r->bytes);
        put_uitem(o, 1, r->blocks);
    }
    putc(']', o);
}

static int by_frame(const void *pa, const void *pb)
{
    const struct frame_ref *a = pa, *b = pb;
    if (a->module != b->module)
        return a->module < b->module ? -1 : 1;
    return (a->off > b->off) - (a->off < b->off);
}

/* Resolve every distinct frame of the chosen stacks once, in address
 * order: libbfd remembers the last function it found, so neighbours in
 * one function skip its scan of the symbol table (the stacks' own order
 * jumps around).  One pseudo-stack of them all goes through view_stack. */
static void resolve_in_order(struct page *pg, const struct findings *f)
{
    size_t n = 0;
    for (size_t i = 0; i < pg->nwhich; i++)
        if (pg->which[i] > 0)
            n += f->stacks->stacks[pg->which[i] - 1].nframes;
    struct frame_ref *all = xmalloc((n + 1) * sizeof *all);
    n = 0;
    for (size_t i = 0; i < pg->nwhich; i++) {
        if (pg->which[i] == 0)
            continue;
        const struct stack *st = &f->stacks->stacks[pg->which[i] - 1];
        memcpy(all + n, st->frames, st->nframes * sizeof *all);
        n += st->nframes;
    }
    qsort(all, n, sizeof *all, by_frame);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || by_frame(&all[k - 1], &all[i]) != 0)
            all[k++] = all[i];
    struct stack pseudo = { 0, (uint32_t)k, all };
    struct view_frames vf = { 0 };
    view_stack(f->stacks, &pseudo, &vf);
    free(vf.v);
    free(all);
}

/* Every stack that allocated, in the order of the log. */
static void choose_stacks(struct page *pg, const struct findings *f,
                          const struct timeline *tl)
{
    int others = any_other_kind(f);
    /* Other blocks' stacks may come after the timeline's last. */
    size_t n = others && f->stacks->nstacks + 1 > tl->nstacks
                   ? f->stacks->nstacks + 1
                   : tl->nstacks;
    pg->which = xcalloc(n + 1, sizeof *pg->which);
    pg->stack_of = xcalloc(n + 1, sizeof *pg->stack_of);
    pg->nstack_of = n;
    for (size_t i = 0; i < n; i++) {
        pg->stack_of[i] = -1;
        int valid = i == 0 || i - 1 < f->stacks->nstacks;
        int allocs = i < tl->nstacks && tl->stacks[i].allocs > 0;
        if (valid && (allocs || (others && other_kind(f, i) != KIND_MALLOC))) {
            pg->stack_of[i] = (long)pg->nwhich;
            pg->which[pg->nwhich++] = i;
        }
    }
}

static void write_data(FILE *o, const struct findings *f,
                       const struct timeline *tl, struct page *pg,
                       html_more_fn *more, void *ctx)
{
    fputs("{\"tool\":\"mtrace-check\",\"schema\":1,\"log\":", o);
    json_cstring(o, f->log);
    fputs(",\"binary\":", o);
    json_cstring(o, f->binary);
    fputs(",\"program\":", o);
    json_cstring(o, f->program);
    write_summary(o, f, tl, pg);
    write_log_end(o, f, tl);
    write_classes(o, f, pg);
    write_stacks(o, f, tl, pg);
    write_frames(o, pg);
    write_series(o, tl);
    write_intervals(o, tl, pg);
    res_json(o, f);
    rss_html(o, f, tl);
    html_more_blocks(o, f, pg->stack_of, pg->nstack_of);
    if (more)
        more(o, f, pg->stack_of, pg->nstack_of, ctx);
    growth_html_data(o, f);
    fputs("}\n", o);
}

static void page_destroy(struct page *pg)
{
    for (size_t i = 0; i < pg->nframes; i++)
        free(pg->frames[i].label);
    for (size_t i = 0; i < pg->frame_keys.n; i++)
        free(pg->frame_keys.items[i]);
    free(pg->frames);
    free(pg->which);
    free(pg->stack_of);
    intern_destroy(&pg->files);
    intern_destroy(&pg->modules);
    intern_destroy(&pg->frame_keys);
    strmap_destroy(&pg->by_view);
}

/* ---- the page ---------------------------------------------------------- */

/* JSON in a <script> block: '<' only ever occurs inside strings. */
static void put_escaped(FILE *out, const char *p, size_t n)
{
    const char *end = p + n;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        size_t k = lt ? (size_t)(lt - p) : (size_t)(end - p);
        fwrite(p, 1, k, out);
        if (!lt)
            break;
        fputs("\\u003c", out);
        p = lt + 1;
    }
}

/* The template with each marker replaced: by a built-in asset, or (NULL)
 * by the page's data. */
static void put_page(FILE *out, const char *data, size_t ndata)
{
    static const struct {
        const char *marker, *text;
    } parts[] = {
        { "/*@CSS@*/", mtc_page_css_start },
        { "/*@JSLIB@*/", mtc_page_format_js_start },
        { "/*@JS@*/", mtc_page_js_start },
        { "@DATA@", NULL },
    };
    enum { NPARTS = sizeof parts / sizeof parts[0] };
    const char *p = mtc_page_html_start;
    for (;;) {
        const char *next = NULL;
        int which = -1;
        for (int i = 0; i < NPARTS; i++) {
            const char *m = strstr(p, parts[i].marker);
            if (m && (!next || m < next))
                next = m, which = i;
        }
        if (!next) {
            fputs(p, out);
            return;
        }
        fwrite(p, 1, (size_t)(next - p), out);
        if (parts[which].text)
            fputs(parts[which].text, out);
        else
            put_escaped(out, data, ndata);
        p = next + strlen(parts[which].marker);
    }
}

int html_write(const char *path, const struct findings *f)
{
    return html_write_more(path, f, NULL, NULL);
}

int html_write_more(const char *path, const struct findings *f,
                    html_more_fn *more, void *ctx)
{
    const struct timeline *tl = f->tl;
    struct page pg;
    char *data = NULL;
    size_t ndata = 0;

    memset(&pg, 0, sizeof pg);
    intern_init(&pg.files);
    intern_init(&pg.modules);
    intern_init(&pg.frame_keys);
    strmap_init(&pg.by_view);
    choose_stacks(&pg, f, tl);
    resolve_in_order(&pg, f);
    FILE *mem = open_memstream(&data, &ndata);
    if (mem == NULL) {
        diag(NULL, 0, "cannot write the HTML report: %s", strerror(errno));
        page_destroy(&pg);
        return -1;
    }
    write_data(mem, f, tl, &pg, more, ctx);
    fclose(mem);
    page_destroy(&pg);

    FILE *out = fopen(path, "w");
    if (out == NULL) {
        diag(path, 0, "cannot write the HTML report: %s", strerror(errno));
        free(data);
        return -1;
    }
    put_page(out, data, ndata);
    free(data);
    int bad = ferror(out);
    if (fclose(out) != 0 || bad) {
        diag(path, 0, "error writing the HTML report: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int findings(struct writer *w, const struct findings *f)
{
    return html_write(w->opt->html, f);
}

/* The page goes to the file --html names, beside the report. */
const struct writer_ops html_writer = {
    .diff = html_diff,
    .name = "html",
    .findings = findings,
};
