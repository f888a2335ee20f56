/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_stacktab.c - stacktab.h: deduplication, ids, lookup by id, and the
 * frames each stack is resolved to (checked against our own
 * dl_iterate_phdr walk). */
#define _GNU_SOURCE
#include "unit.h"
#include "symbols/stackhash.h"
#include "symbols/stacktab.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Interior addresses of real functions, like return addresses. */
static void *code(int (*fn)(int), int offset)
{
    return (void *)((uintptr_t)fn + (uintptr_t)offset);
}

static void *libc_code(void)
{
    void *getpid_addr = dlsym(RTLD_DEFAULT, "getpid");
    ck_assert_ptr_nonnull(getpid_addr);
    return (char *)getpid_addr + 1;
}

START_TEST(same_addresses_same_stack)
{
    void *a[3] = { code(ut_probe_a, 4), code(ut_probe_b, 8),
                   code(ut_probe_c, 1) };
    void *copy[3];
    memcpy(copy, a, sizeof a);
    struct stack *s1 = stacktab_intern(a, 3);
    ck_assert_ptr_nonnull(s1);
    struct stack *s2 = stacktab_intern(copy, 3);
    ck_assert_ptr_eq(s1, s2);
    ck_assert_uint_eq(stack_id(s1), stack_id(s2));
    ck_assert_uint_eq(stacktab_count(), 1);
    ck_assert_uint_eq(s1->depth, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_eq((void *)s1->addrs[i], a[i]);
}
END_TEST

START_TEST(different_addresses_different_stack)
{
    void *a[3] = { code(ut_probe_a, 4), code(ut_probe_b, 8),
                   code(ut_probe_c, 1) };
    void *swapped[3] = { a[1], a[0], a[2] };
    void *other[3] = { a[0], a[1], code(ut_probe_c, 2) };
    struct stack *s = stacktab_intern(a, 3);
    struct stack *prefix = stacktab_intern(a, 2);
    struct stack *sw = stacktab_intern(swapped, 3);
    struct stack *ot = stacktab_intern(other, 3);
    ck_assert(s && prefix && sw && ot);
    ck_assert(s != prefix && s != sw && s != ot && prefix != sw &&
              prefix != ot && sw != ot);
    /* Ids are 1..n in order of first sight. */
    ck_assert_uint_eq(stack_id(s), 1);
    ck_assert_uint_eq(stack_id(prefix), 2);
    ck_assert_uint_eq(stack_id(sw), 3);
    ck_assert_uint_eq(stack_id(ot), 4);
    ck_assert_uint_eq(prefix->depth, 2);
    ck_assert_uint_eq(stacktab_count(), 4);
    ck_assert_ptr_eq(stacktab_intern(swapped, 3), sw);
}
END_TEST

/* Each frame: its address, a module that contains it, and the offset
 * from that module's load bias as dl_iterate_phdr reports it. */
static void check_frames(struct stack *s, void *const *addrs, int n)
{
    for (int i = 0; i < n; i++) {
        struct frame *f = s->frames[i];
        uintptr_t addr = (uintptr_t)addrs[i], bias;
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(f->addr, addr);
        ck_assert_ptr_nonnull(f->mod);
        ck_assert(ut_object_of(addr, &bias, NULL, 0));
        ck_assert_uint_eq(f->mod->bias, bias);
        ck_assert_uint_eq(f->offset, addr - bias);
        ck_assert_uint_le(f->mod->lo, addr);
        ck_assert_uint_gt(f->mod->hi, addr);
    }
}

START_TEST(frames_resolved)
{
    void *a[4] = { code(ut_probe_a, 3), libc_code(), code(ut_probe_b, 5),
                   code(ut_probe_a, 3) };
    struct stack *s = stacktab_intern(a, 4);
    ck_assert_ptr_nonnull(s);
    check_frames(s, a, 4);
    /* One address, one frame, even across positions and stacks. */
    ck_assert_ptr_eq(s->frames[0], s->frames[3]);
    ck_assert_ptr_ne(s->frames[0]->mod, s->frames[1]->mod);
    void *b[2] = { a[2], a[1] };
    struct stack *t = stacktab_intern(b, 2);
    ck_assert_ptr_eq(t->frames[0], s->frames[2]);
    ck_assert_ptr_eq(t->frames[1], s->frames[1]);
}
END_TEST

START_TEST(by_id)
{
    void *a[1] = { code(ut_probe_a, 1) }, *b[1] = { code(ut_probe_b, 1) };
    struct stack *sa = stacktab_intern(a, 1), *sb = stacktab_intern(b, 1);
    ck_assert_ptr_eq(stacktab_by_id(stack_id(sa)), sa);
    ck_assert_ptr_eq(stacktab_by_id(stack_id(sb)), sb);
    ck_assert_ptr_null(stacktab_by_id(0));
    ck_assert_ptr_null(stacktab_by_id(3));
    ck_assert_ptr_null(stacktab_by_id(100000));
    ck_assert_ptr_null(stacktab_by_id(UINT32_MAX));
}
END_TEST

struct tally {
    int visits;
    unsigned char seen[20000];
};

static void tally_stack(struct stack *s, void *arg)
{
    struct tally *t = arg;
    t->visits++;
    if (stack_id(s) < sizeof t->seen)
        t->seen[stack_id(s)]++;
}

/* Many stacks: ids past the first 4096-entry chunk of the id index. */
START_TEST(many_stacks)
{
    enum { N = 10000 };
    static struct stack *made[N];
    for (int i = 0; i < N; i++) {
        void *a[3] = { code(ut_probe_a, i % 50), code(ut_probe_b, i / 50 % 50),
                       code(ut_probe_c, i / 2500) };
        made[i] = stacktab_intern(a, 3);
        UT_CHECK(made[i] != NULL, "stack %d: out of memory", i);
        UT_CHECK(stack_id(made[i]) == (uint32_t)i + 1, "stack %d: id %u", i,
                 stack_id(made[i]));
    }
    ck_assert_uint_eq(stacktab_count(), N);
    for (int i = 0; i < N; i++) {
        void *a[3] = { code(ut_probe_a, i % 50), code(ut_probe_b, i / 50 % 50),
                       code(ut_probe_c, i / 2500) };
        UT_CHECK(stacktab_intern(a, 3) == made[i], "stack %d not deduplicated",
                 i);
        UT_CHECK(stacktab_by_id((uint32_t)i + 1) == made[i], "by_id(%d)",
                 i + 1);
    }
    static struct tally t;
    stacktab_each(tally_stack, &t);
    ck_assert_int_eq(t.visits, N);
    for (int i = 1; i <= N; i++)
        UT_CHECK(t.seen[i] == 1, "stack %d visited %d times", i, t.seen[i]);
}
END_TEST

START_TEST(new_epoch_keys_anew)
{
    void *a[2] = { code(ut_probe_a, 2), code(ut_probe_b, 2) };
    struct stack *before = stacktab_intern(a, 2);
    frametab_new_epoch(); /* as after a dlclose() */
    struct stack *after = stacktab_intern(a, 2);
    ck_assert_ptr_ne(before, after);
    ck_assert_uint_ne(stack_id(before), stack_id(after));
    ck_assert_ptr_ne(before->frames[0], after->frames[0]);
    check_frames(after, a, 2);
    ck_assert_ptr_eq(stacktab_intern(a, 2), after);
    ck_assert_ptr_eq(stacktab_by_id(stack_id(before)), before);
}
END_TEST

/* Threads interning overlapping sets of stacks at the same time: one
 * stack per distinct address list, ids dense and distinct. */
#define CONC_STACKS 3000
struct conc_arg {
    int index;
    struct stack *got[CONC_STACKS];
};

static void stack_addrs(int i, void *a[3])
{
    a[0] = code(ut_probe_a, i % 40);
    a[1] = code(ut_probe_b, i / 40 % 40);
    a[2] = code(ut_probe_c, i / 1600);
}

static void *conc_intern(void *p)
{
    struct conc_arg *arg = p;
    for (int k = 0; k < CONC_STACKS; k++) {
        /* Each thread walks the set from its own starting point. */
        int i = (k + arg->index * CONC_STACKS / 4) % CONC_STACKS;
        void *a[3];
        stack_addrs(i, a);
        arg->got[i] = stacktab_intern(a, 3);
    }
    return NULL;
}

START_TEST(concurrent_intern)
{
    static struct conc_arg args[4];
    pthread_t t[4];
    for (int k = 0; k < 4; k++) {
        args[k].index = k;
        ck_assert_int_eq(pthread_create(&t[k], NULL, conc_intern, &args[k]), 0);
    }
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    ck_assert_uint_eq(stacktab_count(), CONC_STACKS);
    static unsigned char id_seen[CONC_STACKS + 1];
    for (int i = 0; i < CONC_STACKS; i++) {
        struct stack *s = args[0].got[i];
        UT_CHECK(s != NULL, "stack %d: out of memory", i);
        for (int k = 1; k < 4; k++)
            UT_CHECK(args[k].got[i] == s, "stack %d interned twice", i);
        uint32_t id = stack_id(s);
        UT_CHECK(id >= 1 && id <= CONC_STACKS && !id_seen[id]++,
                 "stack %d: id %u", i, id);
        UT_CHECK(stacktab_by_id(id) == s, "by_id(%u)", id);
        void *a[3];
        stack_addrs(i, a);
        UT_CHECK(s->depth == 3 && memcmp(s->addrs, a, sizeof a) == 0,
                 "stack %d: wrong addresses", i);
        for (int f = 0; f < 3; f++)
            UT_CHECK(s->frames[f] && s->frames[f]->addr == (uintptr_t)a[f],
                     "stack %d frame %d", i, f);
    }
}
END_TEST

/* ---- stacks whose hashes are equal ------------------------------------- */

static uint64_t inverse_of_odd(uint64_t m)
{
    uint64_t inv = m; /* right to 3 bits; each step doubles them */
    for (int i = 0; i < 5; i++)
        inv *= 2 - m * inv;
    return inv;
}

/* The ADDR that takes lane A from H to OUT. */
static uint64_t lane_a_addr(uint64_t h, uint64_t out)
{
    uint64_t x = out;
    for (int s = STACKHASH_SHIFT_A; s < 64; s += STACKHASH_SHIFT_A)
        x ^= out >> s; /* undoes x ^= x >> SHIFT */
    return (x * inverse_of_odd(STACKHASH_MUL_A)) ^ h;
}

static uint64_t rot32(uint64_t x)
{
    return x << 32 | x >> 32;
}

/* TWIN: two addresses, other than A's, with A's hash. */
static void hash_twin(void *const a[2], void *twin[2])
{
    uint64_t seed_a = STACKHASH_SEED_A ^ frametab_epoch(),
             seed_b = STACKHASH_SEED_B ^ 2;
    uint64_t la = stackhash_lane_a(seed_a, (uintptr_t)a[0]);
    uint64_t lb = stackhash_lane_b(seed_b, (uintptr_t)a[1]);
    twin[1] = (char *)a[1] + 16;
    uint64_t lb2 = stackhash_lane_b(seed_b, (uintptr_t)twin[1]);
    twin[0] = (void *)lane_a_addr(seed_a, la ^ rot32(lb) ^ rot32(lb2));
    ck_assert_uint_eq(stackhash(a, 2, frametab_epoch()),
                      stackhash(twin, 2, frametab_epoch()));
    ck_assert_ptr_ne(twin[0], a[0]);
}

/* The table tells apart stacks of one hash: the frames decide, through
 * the thread's cache of recent stacks and through the shared table. */
START_TEST(same_hash_different_frames)
{
    void *a[2] = { code(ut_probe_a, 6), code(ut_probe_b, 6) }, *twin[2];
    hash_twin(a, twin);
    struct stack *sa = stacktab_intern(a, 2);
    struct stack *st = stacktab_intern(twin, 2);
    ck_assert(sa && st && sa != st);
    ck_assert_uint_eq(stack_id(sa), 1);
    ck_assert_uint_eq(stack_id(st), 2);
    for (int round = 0; round < 3; round++) {
        ck_assert_ptr_eq(stacktab_intern(a, 2), sa);
        ck_assert_ptr_eq(stacktab_intern(a, 2), sa);
        ck_assert_ptr_eq(stacktab_intern(twin, 2), st);
        ck_assert_ptr_eq(stacktab_intern(twin, 2), st);
    }
    ck_assert_ptr_eq((void *)st->addrs[0], twin[0]);
    ck_assert_ptr_eq((void *)sa->addrs[0], a[0]);
    ck_assert_uint_eq(st->frames[0]->addr, (uintptr_t)twin[0]);
    ck_assert_ptr_eq(sa->frames[0], frametab_get((uintptr_t)a[0]));
    ck_assert_uint_eq(stacktab_count(), 2);
}
END_TEST

/* Deep stacks that differ in one frame, anywhere, many more than the
 * thread's cache of recent stacks holds: each is one stack, found again,
 * with its addresses and frames. */
#define DEEP 24
#define DEEP_STACKS 20000
static void deep_addrs(int i, void *a[DEEP])
{
    for (int k = 0; k < DEEP; k++)
        a[k] = code(k % 2 ? ut_probe_b : ut_probe_c, k);
    a[i % DEEP] = code(ut_probe_a, i / DEEP % 64);
    a[(i / DEEP / 64 + 7) % DEEP] = code(ut_probe_c, 40 + i / DEEP / 64 % 40);
}

START_TEST(many_deep_stacks)
{
    static struct stack *made[DEEP_STACKS];
    for (int i = 0; i < DEEP_STACKS; i++) {
        void *a[DEEP];
        deep_addrs(i, a);
        made[i] = stacktab_intern(a, DEEP - i % 3);
        UT_CHECK(made[i] != NULL, "stack %d: out of memory", i);
    }
    uint32_t n = stacktab_count();
    ck_assert_uint_ge(n, DEEP_STACKS / 2);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < DEEP_STACKS; i++) {
            void *a[DEEP];
            deep_addrs(i, a);
            int depth = DEEP - i % 3;
            struct stack *s = stacktab_intern(a, depth);
            UT_CHECK(s == made[i], "stack %d found as another", i);
            UT_CHECK(s->depth == (unsigned)depth &&
                         memcmp(s->addrs, a, depth * sizeof a[0]) == 0,
                     "stack %d: wrong addresses", i);
            for (int k = 0; k < depth; k++)
                UT_CHECK(s->frames[k]->addr == (uintptr_t)a[k],
                         "stack %d frame %d", i, k);
            UT_CHECK(stacktab_by_id(stack_id(s)) == s, "by_id(%u)",
                     stack_id(s));
        }
    ck_assert_uint_eq(stacktab_count(), n);
}
END_TEST

Suite *stacktab_suite(void)
{
    Suite *s = suite_create("stacktab");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, same_addresses_same_stack);
    tcase_add_test(tc, different_addresses_different_stack);
    tcase_add_test(tc, frames_resolved);
    tcase_add_test(tc, by_id);
    tcase_add_test(tc, many_stacks);
    tcase_add_test(tc, new_epoch_keys_anew);
    tcase_add_test(tc, concurrent_intern);
    tcase_add_test(tc, same_hash_different_frames);
    tcase_add_test(tc, many_deep_stacks);
    suite_add_tcase(s, tc);
    return s;
}
