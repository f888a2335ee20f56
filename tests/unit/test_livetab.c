/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_livetab.c - livetab.h against a plain reference model: insert,
 * remove, count, sizes of 4 GiB and more, colliding keys, the visit of
 * the live set, concurrent use, a realloc's return to its spot, and the
 * nurseries of young blocks (livetab_insert_young). */
#include "unit.h"
#include "track/livetab.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference: slot i of a model stands for pointer ptr_of(base, i). */
struct model {
    uintptr_t base, stride;
    size_t n, live;
    size_t *size;
    uint32_t *stack;
    unsigned char *in;
};

static uintptr_t ptr_of(const struct model *m, size_t i)
{
    return m->base + m->stride * i; /* malloc-like: 16-byte aligned */
}

static void model_init(struct model *m, uintptr_t base, size_t n)
{
    m->base = base;
    m->stride = 16;
    m->n = n;
    m->live = 0;
    m->size = calloc(n, sizeof *m->size);
    m->stack = calloc(n, sizeof *m->stack);
    m->in = calloc(n, 1);
    ck_assert(m->size && m->stack && m->in);
}

static void model_free(struct model *m)
{
    free(m->size);
    free(m->stack);
    free(m->in);
}

/* Removes live slot I of the model from the table, checking what
 * livetab_remove reports. */
static void model_remove(struct model *m, size_t i)
{
    uintptr_t p = ptr_of(m, i);
    size_t size;
    uint32_t stack;
    UT_CHECK(livetab_remove(p, &size, &stack), "%#lx lost", (unsigned long)p);
    UT_CHECK(size == m->size[i] && stack == m->stack[i],
             "%#lx: size %zu stack %u, want %zu %u", (unsigned long)p, size,
             stack, m->size[i], m->stack[i]);
    m->in[i] = 0;
    m->live--;
}

/* A block's size drawn from R (one in 4096 of 4 GiB or more), its stack. */
static size_t draw_size(uint64_t r)
{
    return r % 4096 == 0 ? ((size_t)5 << 30) + (r >> 40) : (r >> 20) % 100000;
}

static uint32_t draw_stack(uint64_t r)
{
    return (uint32_t)(r >> 8) | 1;
}

/* Slot I of the model is live with SIZE and STACK (it may have been). */
static void model_enter(struct model *m, size_t i, size_t size, uint32_t stack)
{
    m->live += !m->in[i];
    m->in[i] = 1;
    m->size[i] = size;
    m->stack[i] = stack;
}

/* Removes every live block: each comes back exactly once, as entered. */
static void model_drain(struct model *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->in[i])
            model_remove(m, i);
    ck_assert_uint_eq(livetab_count(), 0);
}

/* One random step: insert a dead slot or remove a live one, and check
 * what livetab_remove reports. */
static void model_step(struct model *m, uint64_t *seed)
{
    size_t i = ut_rand(seed) % m->n;
    if (m->in[i]) {
        model_remove(m, i);
        return;
    }
    uint64_t r = ut_rand(seed);
    livetab_insert(ptr_of(m, i), draw_size(r), draw_stack(r));
    model_enter(m, i, draw_size(r), draw_stack(r));
}

/* livetab_each must visit every live slot of the models exactly once,
 * with its size and stack, and nothing else. */
struct each_check {
    struct model *models;
    int nmodels;
    unsigned char **seen;
    size_t visits, strays;
};

static void each_visit(uintptr_t ptr, size_t size, uint32_t stack, void *arg)
{
    struct each_check *c = arg;
    c->visits++;
    for (int k = 0; k < c->nmodels; k++) {
        struct model *m = &c->models[k];
        if (ptr < m->base || ptr >= ptr_of(m, m->n) ||
            (ptr - m->base) % m->stride)
            continue;
        size_t i = (ptr - m->base) / m->stride;
        if (!m->in[i] || m->size[i] != size || m->stack[i] != stack ||
            c->seen[k][i]++)
            c->strays++;
        return;
    }
    c->strays++;
}

static void check_each(struct model *models, int nmodels)
{
    unsigned char *seen[8];
    size_t live = 0;
    struct each_check c = { models, nmodels, seen, 0, 0 };
    for (int k = 0; k < nmodels; k++) {
        seen[k] = calloc(models[k].n, 1);
        live += models[k].live;
    }
    livetab_each(each_visit, &c);
    ck_assert_uint_eq(c.strays, 0);
    ck_assert_uint_eq(c.visits, live);
    ck_assert_uint_eq(livetab_count(), live);
    for (int k = 0; k < nmodels; k++)
        free(seen[k]);
}

START_TEST(insert_remove_count)
{
    size_t size;
    uint32_t stack;
    ck_assert_uint_eq(livetab_count(), 0);
    livetab_insert(0x1000, 24, 7);
    livetab_insert(0x2000, 0, 8);
    ck_assert_uint_eq(livetab_count(), 2);
    ck_assert_int_eq(livetab_remove(0x1000, &size, &stack), 1);
    ck_assert_uint_eq(size, 24);
    ck_assert_uint_eq(stack, 7);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x2000, &size, &stack), 1);
    ck_assert_uint_eq(size, 0);
    ck_assert_uint_eq(stack, 8);
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

START_TEST(remove_absent)
{
    size_t size;
    uint32_t stack;
    ck_assert_int_eq(livetab_remove(0x1000, &size, &stack), 0); /* empty */
    livetab_insert(0x1000, 1, 1);
    ck_assert_int_eq(livetab_remove(0x1010, &size, &stack), 0);
    ck_assert_int_eq(livetab_remove(0x1000, &size, &stack), 1);
    ck_assert_int_eq(livetab_remove(0x1000, &size, &stack), 0); /* twice */
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

START_TEST(reinsert_replaces)
{
    size_t size;
    uint32_t stack;
    livetab_insert(0x4000, 10, 1);
    livetab_insert(0x4000, 20, 2);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x4000, &size, &stack), 1);
    ck_assert_uint_eq(size, 20);
    ck_assert_uint_eq(stack, 2);
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

START_TEST(big_sizes_exact)
{
    static const size_t sizes[] = {
        0xfffffffeu,     0xffffffffu,
        (size_t)1 << 32, ((size_t)1 << 32) + 1,
        (size_t)5 << 30, (size_t)1 << 47,
        SIZE_MAX,        0x7fffffffffffffffull,
    };
    enum { N = sizeof sizes / sizeof sizes[0] };
    for (size_t i = 0; i < N; i++)
        livetab_insert(0x10000 + 16 * i, sizes[i], (uint32_t)i + 1);
    struct model m;
    model_init(&m, 0x10000, N);
    for (size_t i = 0; i < N; i++) {
        m.in[i] = 1;
        m.size[i] = sizes[i];
        m.stack[i] = (uint32_t)i + 1;
    }
    m.live = N;
    check_each(&m, 1);
    /* Remove in reverse, so the side list is not just popped in order. */
    for (size_t i = N; i-- > 0;) {
        size_t size;
        uint32_t stack;
        ck_assert_int_eq(livetab_remove(0x10000 + 16 * i, &size, &stack), 1);
        ck_assert_uint_eq(size, sizes[i]);
        ck_assert_uint_eq(stack, i + 1);
    }
    ck_assert_uint_eq(livetab_count(), 0);
    model_free(&m);
}
END_TEST

/* A block re-inserted with a new big size (a free the tracer never saw)
 * must report the newest size, like small blocks do. */
START_TEST(big_reinsert_replaces)
{
    size_t size;
    uint32_t stack;
    livetab_insert(0x8000, (size_t)5 << 30, 1);
    livetab_insert(0x8000, (size_t)6 << 30, 2);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x8000, &size, &stack), 1);
    ck_assert_uint_eq(stack, 2);
    ck_assert_uint_eq(size, (size_t)6 << 30);

    /* Big, then small, then big again at the same address. */
    livetab_insert(0x9000, (size_t)7 << 30, 3);
    livetab_insert(0x9000, 100, 4);
    ck_assert_int_eq(livetab_remove(0x9000, &size, &stack), 1);
    ck_assert_uint_eq(size, 100);
    livetab_insert(0x9000, (size_t)8 << 30, 5);
    ck_assert_int_eq(livetab_remove(0x9000, &size, &stack), 1);
    ck_assert_uint_eq(size, (size_t)8 << 30);
}
END_TEST

/* Keys that differ only below 16 bytes share one probe run (they are one
 * aligned block apart from nothing); removing from the middle of such
 * runs must keep every other key reachable (backward-shift deletion). */
START_TEST(colliding_runs)
{
    enum { GROUPS = 12, PER = 16 };
    uintptr_t keys[GROUPS * PER];
    int live[GROUPS * PER];
    uint64_t seed = 77;
    for (int g = 0; g < GROUPS; g++)
        for (int j = 0; j < PER; j++) {
            keys[g * PER + j] = 0x700000000000ull + (uintptr_t)g * 0x40 +
                                (uintptr_t)j;
            livetab_insert(keys[g * PER + j], (size_t)(g * PER + j),
                           (uint32_t)g);
            live[g * PER + j] = 1;
        }
    ck_assert_uint_eq(livetab_count(), GROUPS * PER);
    /* Remove in a random order; after each removal every live key must
     * still be removable (we take it out and put it back). */
    for (int step = 0; step < GROUPS * PER; step++) {
        int k;
        do
            k = (int)(ut_rand(&seed) % (GROUPS * PER));
        while (!live[k]);
        size_t size;
        uint32_t stack;
        ck_assert_int_eq(livetab_remove(keys[k], &size, &stack), 1);
        ck_assert_uint_eq(size, (size_t)k);
        live[k] = 0;
        for (int o = 0; o < GROUPS * PER; o++) {
            if (!live[o])
                continue;
            UT_CHECK(livetab_remove(keys[o], &size, &stack),
                     "key %d lost after removing %d", o, k);
            UT_CHECK(size == (size_t)o, "key %d: size %zu", o, size);
            livetab_insert(keys[o], size, stack);
        }
        ck_assert_int_eq(livetab_remove(keys[k], &size, &stack), 0);
    }
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

/* A million random inserts and removes against the reference model. */
START_TEST(random_million)
{
    struct model m;
    model_init(&m, 0x555555560000ull, 300000);
    uint64_t seed = 2024;
    for (int step = 0; step < 1000000; step++) {
        model_step(&m, &seed);
        if (step % 250000 == 0)
            ck_assert_uint_eq(livetab_count(), m.live);
    }
    check_each(&m, 1);
    model_drain(&m);
    model_free(&m);
}
END_TEST

struct thread_arg {
    struct model *m;
    uint64_t seed;
};

static void *thread_steps(void *p)
{
    struct thread_arg *a = p;
    for (int step = 0; step < 250000; step++)
        model_step(a->m, &a->seed);
    return NULL;
}

/* Runs thread_steps on each of four models at once, seeds SEED + k, then
 * checks the table against all four and frees them. */
static void four_threads(struct model models[4], uint64_t seed)
{
    struct thread_arg args[4];
    pthread_t t[4];
    for (int k = 0; k < 4; k++) {
        args[k] = (struct thread_arg){ &models[k], seed + (uint64_t)k };
        ck_assert_int_eq(pthread_create(&t[k], NULL, thread_steps, &args[k]),
                         0);
    }
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    livetab_lock_all();
    check_each(models, 4);
    livetab_unlock_all();
    for (int k = 0; k < 4; k++)
        model_free(&models[k]);
}

/* Four threads, disjoint pointer sets, one model each. */
START_TEST(four_threads_disjoint)
{
    struct model models[4];
    for (int k = 0; k < 4; k++)
        model_init(&models[k], 0x7f0000000000ull + ((uintptr_t)k << 32), 50000);
    four_threads(models, 100);
}
END_TEST

/* Four threads on the same chunks (each owns every fourth granule of 1.3
 * MB of addresses): they meet on every shard's lock and switch its
 * checked-out chunk under one another; nothing may be lost or doubled. */
START_TEST(four_threads_sharing_chunks)
{
    struct model models[4];
    for (int k = 0; k < 4; k++) {
        model_init(&models[k], 0x7e0000000000ull + 16 * (uintptr_t)k, 20000);
        models[k].stride = 64;
    }
    four_threads(models, 200);
}
END_TEST

/* A realloc in place: the block goes back where its "<" left the freed
 * entry, and the insert gets the free line's tag back. */
START_TEST(spot_reinsert_in_place)
{
    size_t size;
    uint32_t stack, alloc_tag;
    struct livetab_spot spot;
    livetab_insert_tagged(0x5000, 10, 1, 0x21);
    ck_assert_int_eq(livetab_remove_at(0x5000, &size, &stack, &alloc_tag,
                                       0x22, &spot),
                     LIVE_FOUND);
    ck_assert_ptr_nonnull(spot.shard);
    ck_assert_uint_eq(alloc_tag, 0x21);
    ck_assert_uint_eq(livetab_count(), 0);
    ck_assert_uint_eq(livetab_reinsert(&spot, 0x5000, 30, 2, 0x23), 0x22);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x5000, &size, &stack), 1);
    ck_assert_uint_eq(size, 30);
    ck_assert_uint_eq(stack, 2);
    ck_assert_uint_eq(livetab_count(), 0);
    /* An untagged removal deletes: no spot, an ordinary insert. */
    livetab_insert_tagged(0x5000, 10, 1, 0);
    livetab_remove_at(0x5000, &size, &stack, &alloc_tag, 0, &spot);
    ck_assert_ptr_null(spot.shard);
    ck_assert_uint_eq(livetab_reinsert(&spot, 0x5000, 40, 3, 0), 0);
    ck_assert_uint_eq(livetab_count(), 1);
}
END_TEST

/* Another thread was given the address between the "<" and the ">": the
 * spot holds its live entry now, which is replaced, not counted twice. */
START_TEST(spot_taken_by_another_insert)
{
    size_t size;
    uint32_t stack, alloc_tag;
    struct livetab_spot spot;
    livetab_insert_tagged(0x6000, 10, 1, 0x21);
    livetab_remove_at(0x6000, &size, &stack, &alloc_tag, 0x22, &spot);
    ck_assert_uint_eq(livetab_insert_tagged(0x6000, 20, 2, 0x31), 0x22);
    ck_assert_uint_eq(livetab_reinsert(&spot, 0x6000, 30, 3, 0x23), 0);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x6000, &size, &stack), 1);
    ck_assert_uint_eq(size, 30);
    ck_assert_int_eq(livetab_remove(0x6000, &size, &stack), 0);
}
END_TEST

/* The table was rebuilt between the "<" and the ">" (other blocks made it
 * grow): the spot names a slot of a table gone, every entry survives. */
START_TEST(spot_after_rebuild)
{
    enum { N = 5000 };
    size_t size;
    uint32_t stack, alloc_tag;
    struct livetab_spot spot;
    livetab_insert_tagged(0x7000, 10, 1, 0x21);
    livetab_remove_at(0x7000, &size, &stack, &alloc_tag, 0x22, &spot);
    for (uintptr_t i = 1; i <= N; i++)
        livetab_insert(0x7000 + 16 * i, i, (uint32_t)i);
    livetab_reinsert(&spot, 0x7000, 77, 9, 0x23);
    ck_assert_uint_eq(livetab_count(), N + 1);
    for (uintptr_t i = 0; i <= N; i++) {
        UT_CHECK(livetab_remove(0x7000 + 16 * i, &size, &stack),
                 "%#lx lost", (unsigned long)(0x7000 + 16 * i));
        UT_CHECK(size == (i ? i : 77) && stack == (i ? i : 9),
                 "%#lx: size %zu stack %u", (unsigned long)(0x7000 + 16 * i),
                 size, stack);
    }
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

/* A heap that moves on (each block in a chunk of its own, as mmapped
 * blocks are): the chunks left empty are dropped, so the tables follow
 * the heap in use, not every address ever used.  Untagged removals (no
 * line to wait for) and tagged ones (whose lines are out: no thread has
 * a buffer here) alike. */
START_TEST(dead_chunks_dropped)
{
    enum { MOVES = 50000, CHUNK = 1 << 16 };
    size_t size;
    uint32_t stack, alloc_tag;
    livetab_insert(0x10000000, 1, 1); /* one that stays */
    for (uintptr_t k = 1; k <= MOVES; k++) {
        uintptr_t p = 0x20000000 + k * CHUNK + 16;
        livetab_insert_tagged(p, 200000, 2, (uint32_t)(k & 0x7f) + 1);
        UT_CHECK(livetab_remove_tagged(p, &size, &stack, &alloc_tag,
                                       k % 2 ? (uint32_t)(k & 0x7f) + 2 : 0) ==
                         LIVE_FOUND &&
                     size == 200000,
                 "block %lu", (unsigned long)k);
    }
    /* Each of the 128 shards' directories may hold a few dead chunks
     * until it fills up (16 entries at first): never all 50,000. */
    UT_CHECK(livetab_chunks() < 2048, "%zu chunks kept for 1 live block",
             livetab_chunks());
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(0x10000000, &size, &stack), 1);
}
END_TEST

/* A chunk denser than 16-byte blocks (keys 8 bytes apart): its table
 * outgrows the shard's recycled sizes and gets a mapping of its own. */
START_TEST(dense_chunk)
{
    enum { N = 8192 };
    const uintptr_t base = 0x30000000;
    size_t size;
    uint32_t stack;
    for (uintptr_t i = 0; i < N; i++)
        livetab_insert(base + 8 * i, i + 1, (uint32_t)i);
    ck_assert_uint_eq(livetab_count(), N);
    ck_assert_uint_eq(livetab_chunks(), 1);
    for (uintptr_t i = 0; i < N; i += 2)
        UT_CHECK(livetab_remove(base + 8 * i, &size, &stack) &&
                     size == i + 1 && stack == i,
                 "key %lu", (unsigned long)i);
    for (uintptr_t i = 1; i < N; i += 2)
        UT_CHECK(livetab_remove(base + 8 * i, &size, &stack) &&
                     size == i + 1,
                 "key %lu", (unsigned long)i);
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

/* A live log's marks (livetab.h, LIVE_TAG_WRITTEN): each live block is
 * visited once by livetab_each_unwritten, the inherited never, and a
 * removal gives back whether the block was written. */
struct unwritten_visits {
    uintptr_t seen[8];
    size_t sizes[8];
    int n;
};

static void note_unwritten(uintptr_t ptr, size_t size, uint32_t stack,
                           void *arg)
{
    struct unwritten_visits *v = arg;
    UT_CHECK(stack != LIVE_STACK_INHERITED, "inherited %#lx visited",
             (unsigned long)ptr);
    if (v->n < 8) {
        v->seen[v->n] = ptr;
        v->sizes[v->n] = size;
    }
    v->n++;
}

static struct unwritten_visits visit_unwritten(void)
{
    struct unwritten_visits v = { .n = 0 };
    livetab_lock_all();
    livetab_each_unwritten(note_unwritten, &v);
    livetab_unlock_all();
    return v;
}

START_TEST(each_unwritten_once)
{
    uintptr_t a = 0x7e1000000010, b = 0x7e1000000020, big = 0x7e1000000040;
    uintptr_t far = (uintptr_t)1 << 52, inh = 0x7e1000000060;
    size_t huge = (size_t)6 << 30;
    livetab_insert_tagged(a, 10, 1, 0);
    livetab_insert_tagged(b, 20, 2, 0);
    livetab_insert_tagged(big, huge, 3, 0);
    livetab_insert_tagged(far, 40, 4, 0);
    livetab_insert_tagged(inh, 50, LIVE_STACK_INHERITED, 0);
    struct unwritten_visits v = visit_unwritten();
    ck_assert_int_eq(v.n, 4);
    int got_big = 0;
    for (int i = 0; i < v.n && i < 8; i++)
        got_big += v.seen[i] == big && v.sizes[i] == huge;
    ck_assert_int_eq(got_big, 1);
    ck_assert_int_eq(visit_unwritten().n, 0); /* all marked */
    uintptr_t c = 0x7e1000000030;
    livetab_insert_tagged(c, 30, 5, 0);
    v = visit_unwritten();
    ck_assert_int_eq(v.n, 1);
    ck_assert(v.seen[0] == c);
    livetab_insert_tagged(c + 0x100, 30, 6, 0); /* never visited */
    size_t size;
    uint32_t stack, tag;
    uintptr_t written[] = { a, b, big, far, c };
    for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
        ck_assert(livetab_remove_tagged(written[i], &size, &stack, &tag, 0) !=
                  LIVE_ABSENT);
        ck_assert_uint_eq(tag, LIVE_TAG_WRITTEN);
    }
    ck_assert(livetab_remove_tagged(c + 0x100, &size, &stack, &tag, 0) !=
              LIVE_ABSENT);
    ck_assert_uint_eq(tag, 0);
    ck_assert(livetab_remove(inh, &size, &stack));
    ck_assert_int_eq(visit_unwritten().n, 0);
}
END_TEST

/* A live log's mix: blocks enter young or straight into the table, one
 * in eight at an address still live (a free the tracer never saw: the
 * newer block replaces the older wherever that one is), are looked up,
 * and leave by removal. */
static void model_step_mixed(struct model *m, uint64_t *seed)
{
    size_t i = ut_rand(seed) % m->n;
    uintptr_t p = ptr_of(m, i);
    uint64_t r = ut_rand(seed);
    size_t size;
    uint32_t stack;
    if (r % 5 == 0) {
        int in = livetab_lookup(p, &size, &stack);
        UT_CHECK(in == m->in[i] &&
                     (!in || (size == m->size[i] && stack == m->stack[i])),
                 "lookup of %#lx: %d, want %d", (unsigned long)p, in,
                 m->in[i]);
        return;
    }
    if (m->in[i] && r % 8 != 1) {
        model_remove(m, i);
        return;
    }
    size = draw_size(r);
    stack = draw_stack(r);
    if (r % 16 == 3)
        livetab_insert(p, size, stack);
    else
        livetab_insert_young(p, size, stack);
    model_enter(m, i, size, stack);
}

START_TEST(young_random_mix)
{
    /* Dense: many blocks of a shard meet in its nursery's slots. */
    struct model m;
    model_init(&m, 0x555555560000ull, 20000);
    uint64_t seed = 31;
    for (int step = 0; step < 400000; step++) {
        model_step_mixed(&m, &seed);
        if (step % 50000 == 0) {
            ck_assert_uint_eq(livetab_count(), m.live);
            check_each(&m, 1);
        }
    }
    check_each(&m, 1);
    model_drain(&m);
    model_free(&m);
}
END_TEST

/* One address in one place: a young block replaces the table's entry of
 * its address (a free never seen), big or not, and an insert into the
 * table replaces a young one. */
START_TEST(young_replaces_and_is_replaced)
{
    size_t size;
    uint32_t stack;
    uintptr_t p = 0x7e2000000010;
    livetab_insert(p, 10, 1);
    livetab_insert_young(p, 20, 2);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_lookup(p, &size, &stack), 1);
    ck_assert_uint_eq(size, 20);
    ck_assert_int_eq(livetab_remove(p, &size, &stack), 1);
    ck_assert_uint_eq(size, 20);
    ck_assert_uint_eq(stack, 2);
    ck_assert_int_eq(livetab_remove(p, &size, &stack), 0);

    livetab_insert(p, (size_t)5 << 30, 3); /* big, then young over it */
    livetab_insert_young(p, 30, 4);
    ck_assert_int_eq(livetab_remove(p, &size, &stack), 1);
    ck_assert_uint_eq(size, 30);
    livetab_insert(p, (size_t)6 << 30, 5); /* the side list has only this */
    ck_assert_int_eq(livetab_remove(p, &size, &stack), 1);
    ck_assert_uint_eq(size, (size_t)6 << 30);

    livetab_insert_young(p, 40, 6);
    livetab_insert_young(p, 50, 7); /* young twice */
    ck_assert_uint_eq(livetab_count(), 1);
    livetab_insert(p, 60, 8);
    ck_assert_uint_eq(livetab_count(), 1);
    ck_assert_int_eq(livetab_remove(p, &size, &stack), 1);
    ck_assert_uint_eq(size, 60);
    ck_assert_uint_eq(stack, 8);
    ck_assert_int_eq(livetab_remove(p, &size, &stack), 0);
    ck_assert_uint_eq(livetab_count(), 0);
}
END_TEST

/* Young blocks are visited and marked written like the table's, and a
 * free to remember (a tag) leaves its freed entry in the table. */
START_TEST(young_written_and_tagged_free)
{
    size_t size;
    uint32_t stack, tag;
    uintptr_t a = 0x7e3000000010, b = 0x7e3000000020;
    livetab_insert_young(a, 10, 1);
    livetab_insert_young(b, 20, 2);
    struct unwritten_visits v = visit_unwritten();
    ck_assert_int_eq(v.n, 2);
    ck_assert_int_eq(visit_unwritten().n, 0);
    ck_assert(livetab_remove_tagged(a, &size, &stack, &tag, 0) == LIVE_FOUND);
    ck_assert_uint_eq(tag, LIVE_TAG_WRITTEN);
    ck_assert_uint_eq(size, 10);
    ck_assert(livetab_remove_tagged(b, &size, &stack, &tag, 77) !=
              LIVE_ABSENT);
    ck_assert_uint_eq(size, 20);
    ck_assert_uint_eq(livetab_count(), 0);
    /* The freed entry hands its tag to the next block at B. */
    ck_assert_uint_eq(livetab_insert_tagged(b, 30, 3, 9), 77);
    ck_assert_int_eq(livetab_remove(b, &size, &stack), 1);
    ck_assert_uint_eq(size, 30);
}
END_TEST

Suite *livetab_suite(void)
{
    Suite *s = suite_create("livetab");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, insert_remove_count);
    tcase_add_test(tc, remove_absent);
    tcase_add_test(tc, reinsert_replaces);
    tcase_add_test(tc, big_sizes_exact);
    tcase_add_test(tc, big_reinsert_replaces);
    tcase_add_test(tc, colliding_runs);
    tcase_add_test(tc, random_million);
    tcase_add_test(tc, four_threads_disjoint);
    tcase_add_test(tc, each_unwritten_once);
    tcase_add_test(tc, four_threads_sharing_chunks);
    tcase_add_test(tc, spot_reinsert_in_place);
    tcase_add_test(tc, spot_taken_by_another_insert);
    tcase_add_test(tc, spot_after_rebuild);
    tcase_add_test(tc, dead_chunks_dropped);
    tcase_add_test(tc, dense_chunk);
    tcase_add_test(tc, young_random_mix);
    tcase_add_test(tc, young_replaces_and_is_replaced);
    tcase_add_test(tc, young_written_and_tagged_free);
    suite_add_tcase(s, tc);
    return s;
}
