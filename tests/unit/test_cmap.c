/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cmap.c - the insert-only hash set (cmap.h): lookups, duplicates,
 * sequence ids, growth, colliding hashes and concurrent inserts.
 */
#include "unit.h"
#include "base/cmap.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct item {
    struct cmap_entry e;
    uint64_t key;
};

static int item_eq(const struct cmap_entry *e, const void *key)
{
    return ((const struct item *)e)->key == *(const uint64_t *)key;
}

/* Hash of a key; COLLIDE folds every key onto a few hashes to force long
 * probe runs. */
static int collide;
static uint64_t hash_of(uint64_t key)
{
    if (collide)
        return key % 3;
    uint64_t h = key * 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static struct item *new_item(uint64_t key)
{
    struct item *it = calloc(1, sizeof *it);
    ck_assert_ptr_nonnull(it);
    it->key = key;
    return it;
}

static struct item *insert(struct cmap *m, struct item *it)
{
    return (struct item *)cmap_insert(m, &it->e, hash_of(it->key), item_eq,
                                      &it->key);
}

static struct item *find(struct cmap *m, uint64_t key)
{
    return (struct item *)cmap_find(m, hash_of(key), item_eq, &key);
}

START_TEST(empty_map)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    ck_assert_ptr_null(find(&m, 1));
    ck_assert_uint_eq(cmap_count(&m), 0);
}
END_TEST

START_TEST(insert_find_and_seq)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    struct item *items[100];
    for (int i = 0; i < 100; i++) {
        items[i] = new_item(1000 + (uint64_t)i * 17);
        ck_assert_ptr_eq(insert(&m, items[i]), items[i]);
        ck_assert_uint_eq(items[i]->e.seq, (uint32_t)i + 1);
    }
    ck_assert_uint_eq(cmap_count(&m), 100);
    for (int i = 0; i < 100; i++)
        ck_assert_ptr_eq(find(&m, 1000 + (uint64_t)i * 17), items[i]);
    ck_assert_ptr_null(find(&m, 1001));
    ck_assert_ptr_null(find(&m, 0));
}
END_TEST

START_TEST(duplicate_returns_existing)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    struct item *first = new_item(5), *again = new_item(5);
    ck_assert_ptr_eq(insert(&m, first), first);
    ck_assert_ptr_eq(insert(&m, new_item(6)), find(&m, 6));
    ck_assert_ptr_eq(insert(&m, again), first);
    ck_assert_uint_eq(cmap_count(&m), 2);
    ck_assert_uint_eq(first->e.seq, 1);
    ck_assert_uint_eq(find(&m, 6)->e.seq, 2);
    /* The next new key still gets the next id. */
    struct item *third = new_item(7);
    ck_assert_ptr_eq(insert(&m, third), third);
    ck_assert_uint_eq(third->e.seq, 3);
}
END_TEST

static int hook_calls;
static uint32_t hook_last_seq;
static void hook(struct cmap_entry *e)
{
    hook_calls++;
    hook_last_seq = e->seq; /* the seq must already be set */
}

START_TEST(on_insert_hook)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    m.on_insert = hook;
    for (uint64_t k = 1; k <= 50; k++) {
        insert(&m, new_item(k));
        ck_assert_uint_eq(hook_last_seq, k);
        insert(&m, new_item(k)); /* a duplicate: no call */
    }
    ck_assert_int_eq(hook_calls, 50);
}
END_TEST

struct visit {
    unsigned char *seen;
    size_t n, bad;
};

static void visit_one(struct cmap_entry *e, void *arg)
{
    struct visit *v = arg;
    uint64_t key = ((struct item *)e)->key;
    if (key >= v->n || v->seen[key]++ || e->seq != key + 1)
        v->bad++;
}

static void grow_and_check(size_t n)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    for (uint64_t k = 0; k < n; k++) {
        struct item *it = new_item(k);
        UT_CHECK(insert(&m, it) == it, "insert(&m, it) == it");
    }
    ck_assert_uint_eq(cmap_count(&m), n);
    for (uint64_t k = 0; k < n; k++) {
        struct item *it = find(&m, k);
        UT_CHECK(it != NULL, "key %lu not found", (unsigned long)k);
        UT_CHECK(it->key == k && it->e.seq == k + 1,
                 "key %lu: found key %lu seq %u", (unsigned long)k,
                 (unsigned long)it->key, it->e.seq);
    }
    ck_assert_ptr_null(find(&m, n));
    struct visit v = { calloc(n, 1), n, 0 };
    cmap_each(&m, visit_one, &v);
    ck_assert_uint_eq(v.bad, 0);
    for (size_t k = 0; k < n; k++)
        UT_CHECK(v.seen[k] == 1, "key %zu visited %d times", k, v.seen[k]);
    free(v.seen);
}

START_TEST(growth_many_thousands)
{
    grow_and_check(100000);
}
END_TEST

START_TEST(colliding_hashes)
{
    collide = 1; /* every key on one of three hashes */
    grow_and_check(3000);
    collide = 0;
}
END_TEST

/* Concurrent inserts of overlapping key ranges, each thread in its own
 * order: one entry per key, distinct seqs 1..n, and every thread gets
 * back the entry that is in the table. */
#define CONC_KEYS 20000
struct conc_arg {
    struct cmap *m;
    int index, nthreads;
    struct item **got; /* [key] as returned to this thread */
};

static void *conc_insert(void *p)
{
    struct conc_arg *a = p;
    uint64_t seed = 1234 + (uint64_t)a->index;
    /* Each thread covers 3/4 of the keys, starting at a different place. */
    for (int i = 0; i < CONC_KEYS * 3 / 4; i++) {
        uint64_t key = ((uint64_t)i + (uint64_t)a->index * CONC_KEYS / 4) %
                       CONC_KEYS;
        if (ut_rand(&seed) % 2)
            key = CONC_KEYS - 1 - key;
        a->got[key] = insert(a->m, new_item(key));
    }
    return NULL;
}

static void concurrent(int nthreads)
{
    static struct cmap m;
    memset(&m, 0, sizeof m);
    pthread_t t[4];
    struct conc_arg args[4];
    for (int i = 0; i < nthreads; i++) {
        args[i] = (struct conc_arg){ &m, i, nthreads,
                                     calloc(CONC_KEYS, sizeof(struct item *)) };
        ck_assert_int_eq(pthread_create(&t[i], NULL, conc_insert, &args[i]), 0);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    unsigned char *seq_seen = calloc(CONC_KEYS + 1, 1);
    uint32_t count = cmap_count(&m);
    for (uint64_t k = 0; k < CONC_KEYS; k++) {
        struct item *it = find(&m, k);
        if (it == NULL)
            continue; /* no thread covered it */
        UT_CHECK(it->key == k, "it->key == k");
        UT_CHECK(it->e.seq >= 1, "it->e.seq >= 1");
        UT_CHECK(it->e.seq <= count, "it->e.seq <= count");
        UT_CHECK(!seq_seen[it->e.seq]++, "seq %u twice", it->e.seq);
        for (int i = 0; i < nthreads; i++)
            UT_CHECK(args[i].got[k] == NULL || args[i].got[k] == it,
                     "thread %d got another entry for key %lu", i,
                     (unsigned long)k);
    }
    for (uint32_t s = 1; s <= count; s++)
        UT_CHECK(seq_seen[s], "seq %u missing", s);
    free(seq_seen);
    for (int i = 0; i < nthreads; i++)
        free(args[i].got);
}

START_TEST(concurrent_2_threads)
{
    concurrent(2);
}
END_TEST

START_TEST(concurrent_4_threads)
{
    concurrent(4);
}
END_TEST

/* Lock-free lookups while the table grows: a key once inserted must be
 * found by other threads at every moment afterwards. */
static struct cmap growing;
static atomic_ulong published;
static atomic_int lookup_misses;

static void *lookup_loop(void *p)
{
    uint64_t seed = (uintptr_t)p;
    while (atomic_load(&published) < 60000) {
        uint64_t upto = atomic_load(&published);
        if (upto == 0)
            continue;
        uint64_t key = ut_rand(&seed) % upto;
        if (find(&growing, key) == NULL)
            lookup_misses++;
    }
    return NULL;
}

START_TEST(lookups_during_growth)
{
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, lookup_loop, (void *)5), 0);
    for (uint64_t k = 0; k < 60000; k++) {
        insert(&growing, new_item(k));
        atomic_store(&published, k + 1);
    }
    pthread_join(t, NULL);
    ck_assert_int_eq(lookup_misses, 0);
}
END_TEST

/* Entries of one home slot and other hashes are passed over on the hash
 * the slot holds, without a read of the entry: each is on a page made
 * unreadable, which a read would fault on. */
static int eq_calls;
static int counting_eq(const struct cmap_entry *e, const void *key)
{
    eq_calls++;
    return item_eq(e, key);
}

START_TEST(probe_reads_only_matching_entries)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    enum { N = 6 };
    struct item *it[N];
    for (int i = 0; i < N; i++) {
        it[i] = mmap(NULL, page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ck_assert_ptr_ne(it[i], MAP_FAILED);
        it[i]->key = (uint64_t)i;
        /* Hashes i << 40: one home slot, different hashes. */
        ck_assert_ptr_eq(cmap_insert(&m, &it[i]->e, (uint64_t)i << 40,
                                     counting_eq, &it[i]->key),
                         &it[i]->e);
    }
    for (int i = 0; i < N - 1; i++)
        ck_assert_int_eq(mprotect(it[i], page, PROT_NONE), 0);
    uint64_t key = N - 1;
    eq_calls = 0;
    ck_assert_ptr_eq(cmap_find(&m, key << 40, counting_eq, &key), &it[N - 1]->e);
    ck_assert_int_eq(eq_calls, 1);
    key = N; /* absent, its hash in none of the slots */
    ck_assert_ptr_null(cmap_find(&m, key << 40, counting_eq, &key));
    ck_assert_int_eq(eq_calls, 1);
    for (int i = 0; i < N; i++)
        munmap(it[i], page);
}
END_TEST

/* Equal hashes, different keys: the key decides. */
START_TEST(same_hash_different_keys)
{
    struct cmap m;
    memset(&m, 0, sizeof m);
    struct item a = { .key = 1 }, b = { .key = 2 };
    ck_assert_ptr_eq(cmap_insert(&m, &a.e, 77, item_eq, &a.key), &a.e);
    ck_assert_ptr_eq(cmap_insert(&m, &b.e, 77, item_eq, &b.key), &b.e);
    ck_assert_ptr_eq(cmap_find(&m, 77, item_eq, &b.key), &b.e);
    ck_assert_ptr_eq(cmap_find(&m, 77, item_eq, &a.key), &a.e);
    uint64_t c = 3;
    ck_assert_ptr_null(cmap_find(&m, 77, item_eq, &c));
    ck_assert_uint_eq(cmap_count(&m), 2);
}
END_TEST

Suite *cmap_suite(void)
{
    Suite *s = suite_create("cmap");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, empty_map);
    tcase_add_test(tc, insert_find_and_seq);
    tcase_add_test(tc, duplicate_returns_existing);
    tcase_add_test(tc, on_insert_hook);
    tcase_add_test(tc, growth_many_thousands);
    tcase_add_test(tc, colliding_hashes);
    tcase_add_test(tc, concurrent_2_threads);
    tcase_add_test(tc, concurrent_4_threads);
    tcase_add_test(tc, lookups_during_growth);
    tcase_add_test(tc, probe_reads_only_matching_entries);
    tcase_add_test(tc, same_hash_different_keys);
    suite_add_tcase(s, tc);
    return s;
}
