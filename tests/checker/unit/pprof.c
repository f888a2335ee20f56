/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the heap profile of --pprof (output/pprof.c, pprofout.c).
 * A hand-written log with verdicts is checked as mtrace-check --pprof
 * FILE checks it (the writers' table, the timeline, the findings), FILE
 * decoded again with libprotobuf-c and checked against the format's
 * rules (string 0 is "", ids nonzero, unique and
 * defined, one value per sample type, the program's mapping first,
 * addresses inside their mapping) and against values worked out by hand
 * from the log, a sampled log's as estimates.  go tool pprof reads real
 * profiles in tests/pprof.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "output/outputs.h"
#include "output/pprof.h"
#include "output/profile.pb-c.h"
#include "symbolize/stackview.h"
#include "symbolize/symbolizer.h"

#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

/* Modules without files: the names come from the "#f" records.  The
 * library is module 0 and its frame comes first, yet the program's
 * mapping must come first.  Stacks: s1 a libc frame over a program frame
 * without a name, s2 load_config, s3 an address outside every module,
 * s4 a cache (still reachable), s5 suppressed; one event has no stack. */
static const char hand_log[] =
    "= Start\n"
    "#v 1 pid=1 proc=1:1:00000000 ppid=0 depth=32 unwinder=fast\n"
    "#p /nonexistent/prog\n"
    "#t 1000000000\n"
    "#m 0 0x7f0000000000 - /nonexistent/libc.so.6\n"
    "#m 1 0x555500000000 0123abcd /nonexistent/prog\n"
    "#f 1 0x100 0x10 main\n"
    "#f 1 0x200 0x10 load_config\n"
    "#f 0 0x300 0x10 xstrdup\n"
    "#f - 0x9000 0x10 jit_stub\n"
    "#f 1 0x500 0x10 cache_put\n"
    "#f 1 0x600 0x10 third_party_init\n"
    "#s 1 0:0x300 1:0x400 1:0x100\n"
    "#s 2 1:0x200 1:0x100\n"
    "#s 3 -:0x9000 1:0x100\n"
    "#s 4 1:0x500 1:0x100\n"
    "#s 5 1:0x600 1:0x100\n"
    "@ /nonexistent/libc.so.6:[0x300] + 0x2000 0x30 s1\n"
    "@ /nonexistent/prog:[0x200] + 0x1000 0x100 s2\n"
    "@ /nonexistent/prog:[0x200] + 0x1100 0x40 s2\n"
    "@ [0x9000] + 0x3000 0x20 s3\n"
    "- 0x3000 s3\n"
    "@ [0x9000] + 0x3100 0x10 s3\n"
    "@ /nonexistent/prog:[0x500] + 0x4000 0x200 s4\n"
    "@ /nonexistent/prog:[0x600] + 0x5000 0x50 s5\n"
    "+ 0x8000 0x3\n"
    "#C suppression leak:third_party_init\n"
    "#C scan seq=1 trigger=exit threads=1 stopped=0 unstopped=0 blocks=8 "
    "scanned=4096 us=10\n"
    "#c 0x1000 d 64\n"
    "#c 0x1100 i\n"
    "#c 0x2000 p\n"
    "#c 0x3100 d\n"
    "#c 0x5000 d\n"
    "@ /nonexistent/prog:[0x200] + 0x6000 0x8 s2\n"
    "#t 1006000000\n"
    "#e exit\n"
    "= End\n";

/* What each sample must hold: its stack (the names of every location's
 * lines, innermost first), its label and its six values. */
struct want {
    const char *stack, *label;
    int64_t v[PPROF_NVALUES];
};

static const struct want wanted[] = {
    /* 0x100 + 0x40 + 0x8 allocated, all live; 0x6000 came after the scan */
    { "load_config;main", NULL, { 3, 328, 3, 328, 0, 0 } },
    { "load_config;main", "definitely-lost", { 0, 0, 0, 0, 1, 256 } },
    { "load_config;main", "indirectly-lost", { 0, 0, 0, 0, 1, 64 } },
    { "xstrdup;prog+0x400;main", NULL, { 1, 48, 1, 48, 0, 0 } },
    { "xstrdup;prog+0x400;main", "possibly-lost", { 0, 0, 0, 0, 1, 48 } },
    { "jit_stub;main", NULL, { 2, 48, 1, 16, 0, 0 } },
    { "jit_stub;main", "definitely-lost", { 0, 0, 0, 0, 1, 16 } },
    { "cache_put;main", NULL, { 1, 512, 1, 512, 0, 0 } },
    { "third_party_init;main", NULL, { 1, 80, 1, 80, 0, 0 } },
    { "[no stack recorded]", NULL, { 1, 3, 1, 3, 0, 0 } },
};
enum { NWANTED = sizeof wanted / sizeof wanted[0] };

typedef Perftools__Profiles__Profile profile;

static const char *string(const profile *p, int64_t i)
{
    ck_assert_int_ge(i, 0);
    ck_assert_uint_lt((size_t)i, p->n_string_table);
    return p->string_table[i];
}

/* The element whose id is ID (ids are nonzero and unique: checked). */
#define BY_ID(arr, n, want)                                                      \
    ({                                                                         \
        size_t found_ = n;                                                     \
        for (size_t k_ = 0; k_ < n; k_++)                                      \
            if (arr[k_]->id == (want)) {                                         \
                ck_assert_uint_eq(found_, n);                                  \
                found_ = k_;                                                   \
            }                                                                  \
        ck_assert_msg(found_ < n, "no element with id %llu",                  \
                      (unsigned long long)(want));                               \
        arr[found_];                                                           \
    })

static void sample_stack(const profile *p, const Perftools__Profiles__Sample *s,
                         char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_location_id; i++) {
        Perftools__Profiles__Location *l =
            BY_ID(p->location, p->n_location, s->location_id[i]);
        ck_assert_uint_gt(l->n_line, 0);
        for (size_t j = 0; j < l->n_line; j++) {
            Perftools__Profiles__Function *f =
                BY_ID(p->function, p->n_function, l->line[j]->function_id);
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s", len ? ";" : "",
                     string(p, f->name));
        }
    }
}

static void check_ids(const profile *p)
{
    for (size_t i = 0; i < p->n_mapping; i++)
        ck_assert_uint_ne(BY_ID(p->mapping, p->n_mapping, p->mapping[i]->id)->id,
                          0);
    for (size_t i = 0; i < p->n_function; i++)
        ck_assert_uint_ne(
            BY_ID(p->function, p->n_function, p->function[i]->id)->id, 0);
    for (size_t i = 0; i < p->n_location; i++) {
        Perftools__Profiles__Location *l = p->location[i];
        ck_assert_uint_ne(BY_ID(p->location, p->n_location, l->id)->id, 0);
        if (l->mapping_id == 0)
            continue;
        Perftools__Profiles__Mapping *m =
            BY_ID(p->mapping, p->n_mapping, l->mapping_id);
        ck_assert_uint_ge(l->address, m->memory_start);
        ck_assert_uint_lt(l->address, m->memory_limit);
    }
}

/* FILE read back: gunzipped into *LEN bytes (free() them). */
static uint8_t *gunzip(const char *file, size_t *len)
{
    size_t cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    gzFile gz = gzopen(file, "rb");
    ck_assert_ptr_nonnull(gz);
    ck_assert_int_eq(gzdirect(gz), 0); /* gzipped, not plain */
    *len = 0;
    int n;
    while ((n = gzread(gz, buf + *len, (unsigned)(cap - *len))) > 0) {
        *len += (size_t)n;
        if (*len == cap)
            buf = realloc(buf, cap *= 2);
    }
    ck_assert_int_eq(n, 0);
    gzclose(gz);
    return buf;
}

/* LOG checked as mtrace-check --pprof FILE checks it (the writers'
 * table, the timeline, the findings), FILE decoded again. */
static profile *encoded_log(const char *log)
{
    char path[] = "/tmp/pprof-unit-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct options opt = { .quiet = 1, .log = "log", .pprof = path };
    struct suppressions supp;
    struct outputs x;
    struct engine e;
    int failing;

    sym_init();
    view_init(NULL);
    supp_init(&supp);
    struct class_options co = { .fail_on = 1 << CLASS_DEFINITE,
                                .supp = &supp };
    FILE *out = fopen("/dev/null", "w");
    engine_init(&e, NULL);
    outputs_begin(&x, &opt, &e, out, -1);
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        engine_line(&e, p, (size_t)(nl - p));
        p = nl + 1;
    }
    outputs_release(&x, 1);
    ck_assert_int_eq(outputs_end(&x, &e, &co, &failing), 0);
    engine_destroy(&e);
    supp_destroy(&supp);
    fclose(out);
    size_t len;
    uint8_t *buf = gunzip(path, &len);
    unlink(path);
    profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
    ck_assert_ptr_nonnull(p);
    free(buf);
    return p;
}

static profile *encoded(void)
{
    return encoded_log(hand_log);
}

START_TEST(header)
{
    static const char *const types[][2] = {
        { "alloc_objects", "count" },  { "alloc_space", "bytes" },
        { "inuse_objects", "count" },  { "inuse_space", "bytes" },
        { "leaked_objects", "count" }, { "leaked_space", "bytes" },
    };
    profile *p = encoded();
    ck_assert_uint_gt(p->n_string_table, 0);
    ck_assert_str_eq(p->string_table[0], "");
    ck_assert_uint_eq(p->n_sample_type, PPROF_NVALUES);
    for (size_t i = 0; i < PPROF_NVALUES; i++) {
        ck_assert_str_eq(string(p, p->sample_type[i]->type), types[i][0]);
        ck_assert_str_eq(string(p, p->sample_type[i]->unit), types[i][1]);
    }
    ck_assert_str_eq(string(p, p->default_sample_type), "leaked_space");
    ck_assert_ptr_nonnull(p->period_type);
    ck_assert_str_eq(string(p, p->period_type->type), "space");
    ck_assert_str_eq(string(p, p->period_type->unit), "bytes");
    ck_assert_int_eq(p->period, 1);
    ck_assert_int_eq(p->duration_nanos, 6000000);
    ck_assert_uint_eq(p->n_comment, 2);
    ck_assert_str_eq(string(p, p->comment[0]), "mtrace-check --pprof: log");
    ck_assert_str_eq(string(p, p->comment[1]), "program: /nonexistent/prog");
    perftools__profiles__profile__free_unpacked(p, NULL);
}
END_TEST

START_TEST(mappings)
{
    profile *p = encoded();
    check_ids(p);
    ck_assert_uint_eq(p->n_mapping, 2);
    ck_assert_str_eq(string(p, p->mapping[0]->filename), "/nonexistent/prog");
    ck_assert_str_eq(string(p, p->mapping[0]->build_id), "0123abcd");
    ck_assert_uint_eq(p->mapping[0]->memory_start, 0x555500000000);
    ck_assert(p->mapping[0]->has_functions);
    ck_assert_str_eq(string(p, p->mapping[1]->filename),
                     "/nonexistent/libc.so.6");
    ck_assert_str_eq(string(p, p->mapping[1]->build_id), "");
    /* A return address: the module's load address plus its offset. */
    int seen = 0;
    for (size_t i = 0; i < p->n_location; i++) {
        Perftools__Profiles__Location *l = p->location[i];
        if (l->address == 0x7f0000000300) {
            ck_assert_uint_eq(l->mapping_id, p->mapping[1]->id);
            seen |= 1;
        }
        if (l->address == 0x9000) { /* outside every module */
            ck_assert_uint_eq(l->mapping_id, 0);
            seen |= 2;
        }
    }
    ck_assert_int_eq(seen, 3);
    perftools__profiles__profile__free_unpacked(p, NULL);
}
END_TEST

START_TEST(samples)
{
    char stack[512];
    int found[NWANTED] = { 0 };
    profile *p = encoded();
    ck_assert_uint_eq(p->n_sample, NWANTED);
    for (size_t i = 0; i < p->n_sample; i++) {
        Perftools__Profiles__Sample *s = p->sample[i];
        ck_assert_uint_eq(s->n_value, PPROF_NVALUES);
        sample_stack(p, s, stack, sizeof stack);
        const char *label = NULL;
        if (s->n_label) {
            ck_assert_uint_eq(s->n_label, 1);
            ck_assert_str_eq(string(p, s->label[0]->key), "leak_class");
            label = string(p, s->label[0]->str);
        }
        size_t k = 0;
        for (; k < NWANTED; k++)
            if (strcmp(wanted[k].stack, stack) == 0 &&
                (wanted[k].label && label ? strcmp(wanted[k].label, label) == 0
                                          : wanted[k].label == label))
                break;
        ck_assert_msg(k < NWANTED, "unexpected sample %s %s", stack,
                      label ? label : "");
        ck_assert_int_eq(found[k]++, 0);
        for (int v = 0; v < PPROF_NVALUES; v++)
            ck_assert_msg(s->value[v] == wanted[k].v[v],
                          "%s %s: value %d is %lld, not %lld", stack,
                          label ? label : "", v, (long long)s->value[v],
                          (long long)wanted[k].v[v]);
    }
    perftools__profiles__profile__free_unpacked(p, NULL);
}
END_TEST

/* Each distinct function, location and string is stored once. */
START_TEST(shared)
{
    profile *p = encoded();
    for (size_t i = 0; i < p->n_string_table; i++)
        for (size_t j = i + 1; j < p->n_string_table; j++)
            ck_assert_str_ne(p->string_table[i], p->string_table[j]);
    for (size_t i = 0; i < p->n_location; i++)
        for (size_t j = i + 1; j < p->n_location; j++)
            ck_assert(p->location[i]->address != p->location[j]->address ||
                      p->location[i]->mapping_id != p->location[j]->mapping_id);
    int mains = 0;
    for (size_t i = 0; i < p->n_function; i++)
        mains += strcmp(string(p, p->function[i]->name), "main") == 0;
    ck_assert_int_eq(mains, 1);
    perftools__profiles__profile__free_unpacked(p, NULL);
}
END_TEST

/* A sampled log: each block stands for 1/p blocks of its size, p = 1 -
 * exp(-(SIZE + 1) / RATE) below the rate, as in the report: 99 bytes at
 * rate 1000 are 10.508 blocks, 1040 bytes (rounded per block); a block
 * of 4096 bytes was always recorded. */
static const char sampled_log[] =
    "= Start\n"
    "#v 1 pid=1 proc=1:1:00000000 ppid=0 depth=32 unwinder=fast "
    "sample=1000\n"
    "#p /nonexistent/prog\n"
    "#m 0 0x0 - /nonexistent/prog\n"
    "#f 0 0x100 0x10 main\n"
    "#f 0 0x200 0x10 parse\n"
    "#s 1 0:0x200 0:0x100\n"
    "@ /nonexistent/prog:[0x200] + 0x1000 0x63 s1\n"
    "@ /nonexistent/prog:[0x200] + 0x2000 0x63 s1\n"
    "- 0x2000 s1\n"
    "@ /nonexistent/prog:[0x200] + 0x3000 0x1000 s1\n"
    "#e exit\n"
    "= End\n";

START_TEST(sampled)
{
    char stack[512];
    profile *p = encoded_log(sampled_log);
    ck_assert_int_eq(p->period, 1000);
    ck_assert_uint_eq(p->n_sample, 1);
    sample_stack(p, p->sample[0], stack, sizeof stack);
    ck_assert_str_eq(stack, "parse;main");
    /* 2 x 10.508 + 1 blocks, 2 x 1040 + 4096 bytes allocated; 10.508 + 1
     * blocks, 1040 + 4096 bytes live and leaked. */
    static const int64_t want[PPROF_NVALUES] = { 22, 6176, 12, 5136, 12, 5136 };
    for (int v = 0; v < PPROF_NVALUES; v++)
        ck_assert_int_eq(p->sample[0]->value[v], want[v]);
    perftools__profiles__profile__free_unpacked(p, NULL);
}
END_TEST

/* The file is the encoded profile, gzipped; a path that cannot be
 * written gives -1. */
START_TEST(file)
{
    char path[] = "/tmp/pprof-unit-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct ext_store x;
    ext_init(&x);
    struct pprof_sample s = { -1, { 1, 2, 3, 4, 5, 6 }, "definitely-lost" };
    struct pprof_profile pp = { &x, &s, 1, 0, 4096, NULL };
    ck_assert_int_eq(pprof_write(path, &pp), 0);
    uint8_t *raw;
    size_t len;
    pprof_encode(&pp, &raw, &len);
    gzFile gz = gzopen(path, "rb");
    ck_assert_ptr_nonnull(gz);
    ck_assert_int_eq(gzdirect(gz), 0);
    uint8_t *back = malloc(len + 1);
    ck_assert_int_eq(gzread(gz, back, (unsigned)len + 1), (int)len);
    gzclose(gz);
    ck_assert_mem_eq(back, raw, len);
    profile *p = perftools__profiles__profile__unpack(NULL, len, back);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->period, 4096);
    ck_assert_uint_eq(p->n_sample, 1);
    ck_assert_int_eq(p->sample[0]->value[5], 6);
    perftools__profiles__profile__free_unpacked(p, NULL);
    free(back);
    free(raw);
    unlink(path);
    ck_assert_int_eq(pprof_write("/nonexistent/dir/x.pb.gz", &pp), -1);
    ext_destroy(&x);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("pprof");
    TCase *tc = tcase_create("pprof");
    tcase_add_test(tc, header);
    tcase_add_test(tc, mappings);
    tcase_add_test(tc, samples);
    tcase_add_test(tc, shared);
    tcase_add_test(tc, sampled);
    tcase_add_test(tc, file);
    suite_add_tcase(s, tc);
    return s;
}
