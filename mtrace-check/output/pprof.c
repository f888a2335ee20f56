/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pprof.c - a heap profile in pprof's format (see pprof.h): the messages
 * of profile.proto built from the samples, encoded by libprotobuf-c (the
 * code protoc-c generates from profile.proto), compressed with
 * libdeflate's gzip and written to a file.
 *
 * Each distinct string, function (name and file), location (module and
 * offset) and mapping (module) is stored once and named by its index or
 * id, as the format wants; a location's lines are the readable frames the
 * text report shows for that return address (stackview.h), inlined calls
 * first.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "output/pprof.h"
#include "base/diag.h"
#include "base/maps.h"
#include "base/util.h"
#include "output/folded.h"
#include "symbolize/stackview.h"

#include "output/profile.pb-c.h"

#include <errno.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* A growing array of pointers. */
struct ptrs {
    void **v;
    size_t n, cap;
};

static void ptrs_push(struct ptrs *a, void *p)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = p;
}

struct builder {
    const struct pprof_profile *p;
    struct ptrs strings;   /* char *: the string table */
    struct strmap str_ids; /* string -> index + 1 */
    struct ptrs functions; /* pb_function *, id = position + 1 */
    struct strmap fn_ids;  /* name "\0" file -> id */
    struct ptrs locations; /* pb_location * */
    struct u64map *loc_ids; /* per module index + 2: offset -> id */
    struct ptrs mappings;   /* pb_mapping * */
    uint64_t *map_ids;      /* per module index: mapping id, 0: none yet */
    struct ptrs samples;    /* pb_sample * */
    uint64_t no_stack;      /* the location of blocks without a stack */
    struct view_frames vf;
};

/* ---- tables ------------------------------------------------------------ */

static int64_t str_id(struct builder *b, const char *s, size_t n)
{
    void **slot = strmap_put(&b->str_ids, (struct slice){ s, n });
    if (*slot == NULL) {
        ptrs_push(&b->strings, xmemdup0(s, n));
        *slot = (void *)(uintptr_t)b->strings.n;
    }
    return (int64_t)((uintptr_t)*slot - 1);
}

static int64_t str(struct builder *b, const char *s)
{
    return str_id(b, s, strlen(s));
}

static uint64_t function_id(struct builder *b, const char *name,
                            const char *file)
{
    size_t nl = strlen(name), fl = strlen(file);
    char *key = xmalloc(nl + fl + 1);
    memcpy(key, name, nl + 1);
    memcpy(key + nl + 1, file, fl);
    void **slot = strmap_put(&b->fn_ids, (struct slice){ key, nl + 1 + fl });
    free(key);
    if (*slot)
        return (uintptr_t)*slot;
    pb_function *f = xmalloc(sizeof *f);
    perftools__profiles__function__init(f);
    f->name = str(b, name);
    f->system_name = f->name; /* the log keeps demangled names only */
    f->filename = str(b, file);
    ptrs_push(&b->functions, f);
    f->id = b->functions.n;
    *slot = (void *)(uintptr_t)f->id;
    return f->id;
}

static uint64_t mapping_id(struct builder *b, int32_t module)
{
    if (b->map_ids[module])
        return b->map_ids[module];
    const struct module *m = &b->p->ext->mods[module];
    pb_mapping *mp = xmalloc(sizeof *mp);
    perftools__profiles__mapping__init(mp);
    mp->memory_start = m->base;
    mp->memory_limit = m->base + 1;
    mp->filename = str(b, m->path);
    mp->build_id = str(b, m->build_id);
    /* Symbolized here already: readers need not look for the file. */
    mp->has_functions = mp->has_filenames = 1;
    mp->has_line_numbers = mp->has_inline_frames = 1;
    ptrs_push(&b->mappings, mp);
    mp->id = b->mappings.n;
    b->map_ids[module] = mp->id;
    return mp->id;
}

/* ---- locations --------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The function a frame is in; without a name, its module and offset
 * ("libfoo.so+0x1234") or its address, as the folded stacks name it. */
static uint64_t frame_function(struct builder *b, const struct view_frame *f)
{
    char label[512];
    const char *name = f->function;
    if (name == NULL && f->module)
        snprintf(label, sizeof label, "%s+0x%" PRIx64, base_name(f->module),
                 f->off);
    else if (name == NULL)
        snprintf(label, sizeof label, "0x%" PRIx64, f->off);
    return function_id(b, name ? name : label, f->file ? f->file : "");
}

static pb_location *new_location(struct builder *b, size_t nlines)
{
    pb_location *l = xmalloc(sizeof *l);
    perftools__profiles__location__init(l);
    pb_line *lines = xcalloc(nlines, sizeof *lines);
    l->line = xcalloc(nlines, sizeof *l->line);
    l->n_line = nlines;
    for (size_t i = 0; i < nlines; i++) {
        perftools__profiles__line__init(&lines[i]);
        l->line[i] = &lines[i];
    }
    ptrs_push(&b->locations, l);
    l->id = b->locations.n;
    return l;
}

/* The location of one return address: its lines are the frames the
 * symbolizer finds there, inlined calls first (the format's order). */
static uint64_t location_id(struct builder *b, const struct frame_ref *ref)
{
    void **slot = u64map_put(&b->loc_ids[ref->module + 2], ref->off);
    if (*slot)
        return (uintptr_t)*slot;
    struct stack one = { 0, 1, (struct frame_ref *)ref };
    view_stack(b->p->ext, &one, &b->vf);
    pb_location *l = new_location(b, b->vf.n);
    l->address = ref->off;
    if (ref->module >= 0) {
        l->mapping_id = mapping_id(b, ref->module);
        pb_mapping *mp = b->mappings.v[l->mapping_id - 1];
        l->address += mp->memory_start;
        if (l->address >= mp->memory_limit)
            mp->memory_limit = l->address + 1;
    }
    for (size_t i = 0; i < b->vf.n; i++) {
        l->line[i]->function_id = frame_function(b, &b->vf.v[i]);
        l->line[i]->line = b->vf.v[i].line;
    }
    *slot = (void *)(uintptr_t)l->id;
    return l->id;
}

/* The one location of the blocks whose allocation has no stack. */
static uint64_t no_stack_location(struct builder *b)
{
    if (b->no_stack == 0) {
        pb_location *l = new_location(b, 1);
        l->line[0]->function_id = function_id(b, FOLDED_NO_STACK, "");
        b->no_stack = l->id;
    }
    return b->no_stack;
}

/* ---- samples ----------------------------------------------------------- */

static void add_sample(struct builder *b, const struct pprof_sample *s)
{
    const struct ext_store *x = b->p->ext;
    const struct stack *st = s->stack >= 0 && (size_t)s->stack < x->nstacks
                                 ? &x->stacks[s->stack]
                                 : NULL;
    size_t n = st && st->nframes ? st->nframes : 1;
    pb_sample *ps = xmalloc(sizeof *ps);
    perftools__profiles__sample__init(ps);
    ps->location_id = xcalloc(n, sizeof *ps->location_id);
    ps->n_location_id = n;
    for (size_t i = 0; i < n; i++) /* frame 0, the innermost, first */
        ps->location_id[i] = st && st->nframes
                                 ? location_id(b, &st->frames[i])
                                 : no_stack_location(b);
    ps->value = xcalloc(PPROF_NVALUES, sizeof *ps->value);
    ps->n_value = PPROF_NVALUES;
    for (int i = 0; i < PPROF_NVALUES; i++)
        ps->value[i] = s->value[i] > INT64_MAX ? INT64_MAX
                                               : (int64_t)s->value[i];
    if (s->leak_class) {
        pb_label *l = xmalloc(sizeof *l);
        perftools__profiles__label__init(l);
        l->key = str(b, "leak_class");
        l->str = str(b, s->leak_class);
        ps->label = xmalloc(sizeof *ps->label);
        ps->label[0] = l;
        ps->n_label = 1;
    }
    ptrs_push(&b->samples, ps);
}

/* ---- the profile ------------------------------------------------------- */

static const char *const value_names[PPROF_NVALUES][2] = {
    { "alloc_objects", "count" },  { "alloc_space", "bytes" },
    { "inuse_objects", "count" },  { "inuse_space", "bytes" },
    { "leaked_objects", "count" }, { "leaked_space", "bytes" },
};

static pb_value_type *value_type(struct builder *b, const char *type,
                                 const char *unit)
{
    pb_value_type *v = xmalloc(sizeof *v);
    perftools__profiles__value_type__init(v);
    v->type = str(b, type);
    v->unit = str(b, unit);
    return v;
}

/* The program's mapping first, as the format asks of the main binary. */
static void program_first(struct builder *b)
{
    const char *program = b->p->ext->program;
    for (size_t i = 1; program && i < b->mappings.n; i++) {
        pb_mapping *m = b->mappings.v[i];
        if (strcmp(b->strings.v[m->filename], program) != 0)
            continue;
        memmove(b->mappings.v + 1, b->mappings.v, i * sizeof *b->mappings.v);
        b->mappings.v[0] = m;
        return;
    }
}

static void fill(struct builder *b, pb_profile *prof)
{
    const struct pprof_profile *p = b->p;

    perftools__profiles__profile__init(prof);
    str(b, ""); /* index 0 */
    prof->sample_type = xcalloc(PPROF_NVALUES, sizeof *prof->sample_type);
    prof->n_sample_type = PPROF_NVALUES;
    for (int i = 0; i < PPROF_NVALUES; i++)
        prof->sample_type[i] = value_type(b, value_names[i][0],
                                          value_names[i][1]);
    prof->default_sample_type = str(b, PPROF_DEFAULT_TYPE);
    prof->period_type = value_type(b, "space", "bytes");
    prof->period = p->sample_rate ? (int64_t)p->sample_rate : 1;
    prof->duration_nanos = (int64_t)p->duration_ns;
    for (size_t i = 0; i < p->nsamples; i++)
        add_sample(b, &p->samples[i]);
    size_t nc = 0;
    while (p->comments && p->comments[nc])
        nc++;
    prof->comment = xcalloc(nc + 1, sizeof *prof->comment);
    prof->n_comment = nc;
    for (size_t i = 0; i < nc; i++)
        prof->comment[i] = str(b, p->comments[i]);
    program_first(b);
    /* Every string is in: the tables can be handed over. */
    prof->sample = (pb_sample **)b->samples.v;
    prof->n_sample = b->samples.n;
    prof->mapping = (pb_mapping **)b->mappings.v;
    prof->n_mapping = b->mappings.n;
    prof->location = (pb_location **)b->locations.v;
    prof->n_location = b->locations.n;
    prof->function = (pb_function **)b->functions.v;
    prof->n_function = b->functions.n;
    prof->string_table = (char **)b->strings.v;
    prof->n_string_table = b->strings.n;
}

static void builder_init(struct builder *b, const struct pprof_profile *p)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    strmap_init(&b->str_ids);
    strmap_init(&b->fn_ids);
    b->loc_ids = xcalloc(p->ext->nmods + 2, sizeof *b->loc_ids);
    for (size_t i = 0; i < p->ext->nmods + 2; i++)
        u64map_init(&b->loc_ids[i]);
    b->map_ids = xcalloc(p->ext->nmods + 1, sizeof *b->map_ids);
}

static void free_all(struct ptrs *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

static void builder_destroy(struct builder *b, pb_profile *prof)
{
    for (size_t i = 0; i < b->samples.n; i++) {
        pb_sample *s = b->samples.v[i];
        free(s->location_id);
        free(s->value);
        if (s->n_label)
            free(s->label[0]);
        free(s->label);
    }
    for (size_t i = 0; i < b->locations.n; i++) {
        pb_location *l = b->locations.v[i];
        if (l->n_line)
            free(l->line[0]);
        free(l->line);
    }
    for (size_t i = 0; i < PPROF_NVALUES; i++)
        free(prof->sample_type[i]);
    free(prof->sample_type);
    free(prof->period_type);
    free(prof->comment);
    free_all(&b->samples);
    free_all(&b->locations);
    free_all(&b->mappings);
    free_all(&b->functions);
    free_all(&b->strings);
    strmap_destroy(&b->str_ids);
    strmap_destroy(&b->fn_ids);
    for (size_t i = 0; i < b->p->ext->nmods + 2; i++)
        u64map_destroy(&b->loc_ids[i]);
    free(b->loc_ids);
    free(b->map_ids);
    free(b->vf.v);
}

void pprof_encode(const struct pprof_profile *p, uint8_t **out, size_t *len)
{
    struct builder b;
    pb_profile prof;

    builder_init(&b, p);
    fill(&b, &prof);
    *len = perftools__profiles__profile__get_packed_size(&prof);
    *out = xmalloc(*len ? *len : 1);
    perftools__profiles__profile__pack(&prof, *out);
    builder_destroy(&b, &prof);
}

/* ---- the file ---------------------------------------------------------- */

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        diag(path, 0, "cannot write the profile: %s", strerror(errno));
        return -1;
    }
    int bad = fwrite(data, 1, len, f) != len;
    if (fclose(f) != 0 || bad) {
        diag(path, 0, "error writing the profile: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int pprof_write(const char *path, const struct pprof_profile *p)
{
    uint8_t *raw;
    size_t len;

    pprof_encode(p, &raw, &len);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    if (c == NULL)
        diag_fatal(NULL, "out of memory");
    size_t bound = libdeflate_gzip_compress_bound(c, len);
    uint8_t *gz = xmalloc(bound);
    size_t n = libdeflate_gzip_compress(c, raw, len, gz, bound);
    libdeflate_free_compressor(c);
    free(raw);
    int err = write_file(path, gz, n);
    free(gz);
    return err;
}
