/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_mark.c - the reachability core (mark.h, classify.h) on synthetic
 * graphs: blocks are ordinary heap memory of the test runner, roots are
 * arrays of words; each test builds a graph, marks and classifies it and
 * checks the class of every block against what valgrind's memcheck
 * defines. */
#include "unit.h"
#include "scan/classify.h"
#include "scan/mark.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *test_map(size_t size, void *ctx)
{
    (void)ctx;
    return calloc(1, size);
}

static void test_unmap(void *p, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    free(p);
}

static const struct scratch_ops test_ops = { test_map, test_unmap, NULL };

/* A graph of up to 64 blocks of given sizes. */
struct graph {
    size_t n;
    uintptr_t *blk[64];
    size_t size[64];
    struct blockset bs;
};

static void graph_init(struct graph *g, size_t n, const size_t *sizes)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    for (size_t i = 0; i < n; i++) {
        g->size[i] = sizes[i];
        g->blk[i] = calloc(1, sizes[i] ? sizes[i] : 1);
        ck_assert(g->blk[i] != NULL);
    }
}

static void graph_index(struct graph *g)
{
    ck_assert_int_eq(blockset_init(&g->bs, g->n, &test_ops), 0);
    for (size_t i = 0; i < g->n; i++)
        ck_assert_int_eq(blockset_add(&g->bs, (uintptr_t)g->blk[i], g->size[i],
                                      (uint32_t)i + 1, 0),
                         0);
    ck_assert_int_eq(blockset_finish(&g->bs), 0);
}

static long index_of(struct graph *g, size_t b)
{
    long i = blockset_find(&g->bs, (uintptr_t)g->blk[b]);
    ck_assert_msg(i >= 0, "block %zu not found", b);
    ck_assert_uint_eq(block_stack(&g->bs, (size_t)i), b + 1);
    return i;
}

static enum verdict verdict_of(struct graph *g, size_t b)
{
    return block_verdict(&g->bs, (size_t)index_of(g, b));
}

/* Marks from the words in ROOTS, then classifies. */
static void graph_run(struct graph *g, const uintptr_t *roots, size_t nroots)
{
    graph_index(g);
    mark_range(&g->bs, (uintptr_t)roots, (uintptr_t)(roots + nroots));
    mark_drain(&g->bs);
    ck_assert_int_eq(classify_lost(&g->bs), 0);
}

static void graph_free(struct graph *g)
{
    blockset_destroy(&g->bs);
    for (size_t i = 0; i < g->n; i++)
        free(g->blk[i]);
}

#define LINK(g, from, word, to, offset)                                        \
    ((g)->blk[from][word] = (uintptr_t)(g)->blk[to] + (offset))

START_TEST(start_pointers_chain_is_reachable)
{
    static const size_t sizes[] = { 32, 32, 32 };
    struct graph g;
    graph_init(&g, 3, sizes);
    LINK(&g, 0, 1, 1, 0);
    LINK(&g, 1, 3, 2, 0);
    uintptr_t roots[] = { 7, (uintptr_t)g.blk[0], 9 };
    graph_run(&g, roots, 3);
    for (size_t b = 0; b < 3; b++)
        ck_assert_int_eq(verdict_of(&g, b), VERDICT_REACHABLE);
    graph_free(&g);
}
END_TEST

START_TEST(interior_pointer_is_possibly_lost)
{
    /* root -?-> A ---> B: both possibly lost (memcheck case 7/8). */
    static const size_t sizes[] = { 64, 32 };
    struct graph g;
    graph_init(&g, 2, sizes);
    g.blk[0][0] = 0; /* no heuristic may fire: a zero count */
    LINK(&g, 0, 2, 1, 0);
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 40 };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_POSSIBLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_POSSIBLE);
    graph_free(&g);
}
END_TEST

START_TEST(later_start_pointer_upgrades_possible)
{
    /* A first reached by an interior pointer, then by a start pointer:
     * A and what A points to become reachable. */
    static const size_t sizes[] = { 64, 32 };
    struct graph g;
    graph_init(&g, 2, sizes);
    LINK(&g, 0, 2, 1, 0);
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 40, (uintptr_t)g.blk[0] };
    graph_run(&g, roots, 2);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_REACHABLE);
    graph_free(&g);
}
END_TEST

START_TEST(leaked_tree_one_direct_rest_indirect)
{
    /* A -> B, A -> C, C -> D: A definitely lost, B C D indirect, and A
     * carries their bytes. */
    static const size_t sizes[] = { 32, 48, 64, 80 };
    struct graph g;
    graph_init(&g, 4, sizes);
    LINK(&g, 0, 0, 1, 0);
    LINK(&g, 0, 1, 2, 0);
    LINK(&g, 2, 5, 3, 8); /* interior pointers count inside a clique */
    uintptr_t roots[] = { 0 };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_DEFINITE);
    for (size_t b = 1; b < 4; b++)
        ck_assert_int_eq(verdict_of(&g, b), VERDICT_INDIRECT);
    long a = index_of(&g, 0);
    ck_assert_uint_eq(g.bs.indirect[a], 48 + 64 + 80);
    for (size_t b = 1; b < 4; b++)
        ck_assert_uint_eq(g.bs.leader[index_of(&g, b)], a);
    graph_free(&g);
}
END_TEST

START_TEST(leaked_cycle_has_one_direct_block)
{
    static const size_t sizes[] = { 32, 32, 32 };
    struct graph g;
    graph_init(&g, 3, sizes);
    LINK(&g, 0, 0, 1, 0);
    LINK(&g, 1, 0, 2, 0);
    LINK(&g, 2, 0, 0, 0);
    uintptr_t roots[] = { 0 };
    graph_run(&g, roots, 1);
    size_t direct = 0, indirect = 0;
    uint64_t carried = 0;
    for (size_t b = 0; b < 3; b++) {
        enum verdict v = verdict_of(&g, b);
        direct += v == VERDICT_DEFINITE;
        indirect += v == VERDICT_INDIRECT;
        if (v == VERDICT_DEFINITE)
            carried = g.bs.indirect[index_of(&g, b)];
    }
    ck_assert_uint_eq(direct, 1);
    ck_assert_uint_eq(indirect, 2);
    ck_assert_uint_eq(carried, 64);
    /* The lowest address heads it, as in memcheck. */
    ck_assert_int_eq(block_verdict(&g.bs, 0), VERDICT_DEFINITE);
    graph_free(&g);
}
END_TEST

START_TEST(self_pointer_is_definitely_lost)
{
    static const size_t sizes[] = { 32 };
    struct graph g;
    graph_init(&g, 1, sizes);
    LINK(&g, 0, 2, 0, 0);
    uintptr_t roots[] = { 0 };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_DEFINITE);
    ck_assert_uint_eq(g.bs.indirect[index_of(&g, 0)], 0);
    graph_free(&g);
}
END_TEST

START_TEST(earlier_clique_joins_later_one)
{
    /* Address order decides the first leader; a later lost block that
     * reaches it takes it over with its bytes.  B (lower?) -> C; A -> B.
     * Whatever the addresses, exactly A is definitely lost. */
    static const size_t sizes[] = { 32, 40, 56 };
    struct graph g;
    graph_init(&g, 3, sizes);
    LINK(&g, 0, 0, 1, 0);
    LINK(&g, 1, 0, 2, 0);
    uintptr_t roots[] = { 0 };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_DEFINITE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_INDIRECT);
    ck_assert_int_eq(verdict_of(&g, 2), VERDICT_INDIRECT);
    ck_assert_uint_eq(g.bs.indirect[index_of(&g, 0)], 40 + 56);
    graph_free(&g);
}
END_TEST

START_TEST(reachable_through_possible_stays_possible)
{
    /* root -?-> A ---> B, and a lost C ---> B: B stays possibly lost
     * (the clique walk only takes unreached blocks). */
    static const size_t sizes[] = { 64, 32, 32 };
    struct graph g;
    graph_init(&g, 3, sizes);
    LINK(&g, 0, 3, 1, 0);
    LINK(&g, 2, 0, 1, 0);
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 16 };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_POSSIBLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_POSSIBLE);
    ck_assert_int_eq(verdict_of(&g, 2), VERDICT_DEFINITE);
    graph_free(&g);
}
END_TEST

START_TEST(zero_sized_block_holds_its_start)
{
    static const size_t sizes[] = { 0, 0 };
    struct graph g;
    graph_init(&g, 2, sizes);
    uintptr_t roots[] = { (uintptr_t)g.blk[0] };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_DEFINITE);
    graph_free(&g);
}
END_TEST

/* ---- memcheck's C++ heuristics ------------------------------------------- */

START_TEST(new_array_cookie_counts_as_start)
{
    /* new T[5] of 24-byte T with a destructor: an 8-byte count, then the
     * elements; the program holds start + 8. */
    static const size_t sizes[] = { 8 + 5 * 24 };
    struct graph g;
    graph_init(&g, 1, sizes);
    g.blk[0][0] = 5;
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 8 };
    graph_run(&g, roots, 1);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert(block_flags(&g.bs, (size_t)index_of(&g, 0)) & BLOCK_HEURISTIC);
    graph_free(&g);
}
END_TEST

START_TEST(heuristics_off_leave_it_possible)
{
    static const size_t sizes[] = { 8 + 5 * 24 };
    struct graph g;
    graph_init(&g, 1, sizes);
    g.blk[0][0] = 5;
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 8 };
    graph_index(&g);
    g.bs.heuristics = 0;
    mark_range(&g.bs, (uintptr_t)roots, (uintptr_t)(roots + 1));
    mark_drain(&g.bs);
    classify_lost(&g.bs);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_POSSIBLE);
    graph_free(&g);
}
END_TEST

START_TEST(length64_and_stdstring)
{
    /* sqlite: the size of the rest in the first 8 bytes; a copy-on-write
     * std::string: length, capacity, refcount, then the characters. */
    static const size_t sizes[] = { 8 + 100, 3 * 8 + 30 + 1, 8 + 100 };
    struct graph g;
    graph_init(&g, 3, sizes);
    g.blk[0][0] = 100;
    g.blk[1][0] = 12; /* length  */
    g.blk[1][1] = 30; /* capacity */
    g.blk[2][0] = 99; /* neither a length nor a divisor of 100 */
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 8, (uintptr_t)g.blk[1] + 24,
                          (uintptr_t)g.blk[2] + 8 };
    graph_run(&g, roots, 3);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 2), VERDICT_POSSIBLE);
    graph_free(&g);
}
END_TEST

static void f_one(void)
{
}
static void f_two(void)
{
}

START_TEST(multiple_inheritance_secondary_base)
{
    /* An object whose first word and a later word both point to vtables:
     * a pointer to the later word (a secondary base) reaches it. */
    static void (*vtable[4])(void);
    vtable[0] = f_one;
    vtable[1] = f_two;
    static const size_t sizes[] = { 48, 48 };
    struct graph g;
    graph_init(&g, 2, sizes);
    g.blk[0][0] = (uintptr_t)vtable;
    g.blk[0][2] = (uintptr_t)vtable;
    g.blk[1][0] = (uintptr_t)vtable;
    g.blk[1][2] = 12345; /* not a vtable at the inner pointer */
    uintptr_t lo = (uintptr_t)f_one < (uintptr_t)f_two ? (uintptr_t)f_one
                                                       : (uintptr_t)f_two;
    struct map_info maps[2] = {
        { lo & ~4095ul, (lo & ~4095ul) + (1ul << 20),
          MAPF_READ | MAPF_EXEC | MAPF_FILE },
        { (uintptr_t)vtable, (uintptr_t)(vtable + 4), MAPF_READ | MAPF_FILE },
    };
    if (maps[1].lo < maps[0].hi) { /* keep them sorted and disjoint */
        maps[0].hi = maps[1].lo < maps[0].lo ? maps[0].lo : maps[1].lo;
        ck_assert(maps[0].lo <= (uintptr_t)f_one);
    }
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 16, (uintptr_t)g.blk[1] + 16 };
    graph_index(&g);
    g.bs.maps = maps;
    g.bs.nmaps = 2;
    mark_range(&g.bs, (uintptr_t)roots, (uintptr_t)(roots + 2));
    mark_drain(&g.bs);
    classify_lost(&g.bs);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_POSSIBLE);
    graph_free(&g);
}
END_TEST

/* ---- the table ------------------------------------------------------------ */

START_TEST(find_agrees_with_brute_force)
{
    /* Blocks carved out of one arena, some tiny, some over the big-block
     * limit, then random probes. */
    size_t arena_size = 8 << 20;
    char *arena = malloc(arena_size);
    ck_assert(arena != NULL);
    uint64_t seed = 42;
    struct blockset bs;
    static uintptr_t start[4000];
    static uint64_t size[4000];
    size_t n = 0;
    for (size_t at = 16; n < 4000 && at < arena_size;) {
        uint64_t r = ut_rand(&seed);
        uint64_t sz = r % 50 == 0 ? 300000 + r % 100000 : r % 300;
        if (at + sz >= arena_size)
            break;
        start[n] = (uintptr_t)arena + at;
        size[n++] = sz;
        at += (sz + 16 + 15) & ~15ul;
    }
    ck_assert_int_eq(blockset_init(&bs, n, &test_ops), 0);
    for (size_t i = n; i-- > 0;) /* any order */
        blockset_add(&bs, start[i], size[i], (uint32_t)i, 0);
    ck_assert_int_eq(blockset_finish(&bs), 0);
    ck_assert_uint_eq(bs.n, n);
    for (int probe = 0; probe < 200000; probe++) {
        uintptr_t w = (uintptr_t)arena - 64 +
                      ut_rand(&seed) % (arena_size + 128);
        long want = -1;
        for (size_t i = 0; i < n; i++)
            if (w - start[i] < (size[i] ? size[i] : 1))
                want = (long)i;
        long got = blockset_find(&bs, w);
        UT_CHECK(
            (want < 0) == (got < 0) &&
                (got < 0 || block_stack(&bs, (size_t)got) == (uint32_t)want),
            "probe %#lx: want %ld got %ld", (unsigned long)w, want, got);
    }
    blockset_destroy(&bs);
    free(arena);
}
END_TEST

START_TEST(unaligned_starts_are_sorted_too)
{
    /* Blocks a few bytes apart (not malloc's): the sort's last pass. */
    static char arena[256];
    static const size_t off[] = { 40, 3, 17, 1, 9, 33 };
    struct blockset bs;
    ck_assert_int_eq(blockset_init(&bs, 6, &test_ops), 0);
    for (size_t i = 0; i < 6; i++)
        blockset_add(&bs, (uintptr_t)arena + off[i], 2, (uint32_t)i, 0);
    ck_assert_int_eq(blockset_finish(&bs), 0);
    for (size_t i = 0; i + 1 < bs.n; i++)
        ck_assert(block_start(&bs, i) < block_start(&bs, i + 1));
    for (size_t i = 0; i < 6; i++) {
        long k = blockset_find(&bs, (uintptr_t)arena + off[i] + 1);
        ck_assert(k >= 0 && block_stack(&bs, (size_t)k) == i);
    }
    blockset_destroy(&bs);
}
END_TEST

START_TEST(long_chain_needs_no_recursion)
{
    enum { N = 200000 };
    uintptr_t **blk = malloc(N * sizeof *blk);
    for (size_t i = 0; i < N; i++)
        blk[i] = calloc(2, sizeof(uintptr_t));
    for (size_t i = 0; i + 1 < N; i++)
        blk[i][1] = (uintptr_t)blk[i + 1];
    struct blockset bs;
    ck_assert_int_eq(blockset_init(&bs, N, &test_ops), 0);
    for (size_t i = 0; i < N; i++)
        blockset_add(&bs, (uintptr_t)blk[i], 16, 1, 0);
    ck_assert_int_eq(blockset_finish(&bs), 0);
    mark_value(&bs, (uintptr_t)blk[0]);
    mark_drain(&bs);
    ck_assert_int_eq(classify_lost(&bs), 0);
    for (size_t i = 0; i < bs.n; i++)
        UT_CHECK(block_verdict(&bs, i) == VERDICT_REACHABLE, "block %zu", i);
    /* The same chain unreached: one direct, the rest indirect. */
    blockset_destroy(&bs);
    ck_assert_int_eq(blockset_init(&bs, N, &test_ops), 0);
    for (size_t i = 0; i < N; i++)
        blockset_add(&bs, (uintptr_t)blk[i], 16, 1, 0);
    ck_assert_int_eq(blockset_finish(&bs), 0);
    mark_drain(&bs);
    ck_assert_int_eq(classify_lost(&bs), 0);
    size_t direct = 0;
    for (size_t i = 0; i < bs.n; i++)
        direct += block_verdict(&bs, i) == VERDICT_DEFINITE;
    ck_assert_uint_eq(direct, 1);
    ck_assert_uint_eq(bs.indirect[blockset_find(&bs, (uintptr_t)blk[0])],
                      16ull * (N - 1));
    blockset_destroy(&bs);
    for (size_t i = 0; i < N; i++)
        free(blk[i]);
    free(blk);
}
END_TEST

START_TEST(careful_mode_survives_unmapped_memory)
{
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(m != MAP_FAILED);
    static const size_t sizes[] = { 32 };
    struct graph g;
    graph_init(&g, 1, sizes);
    ((uintptr_t *)(m + 2 * page))[3] = (uintptr_t)g.blk[0];
    munmap(m + page, page); /* a hole in the middle of the range */
    graph_index(&g);
    g.bs.careful = 1;
    mark_range(&g.bs, (uintptr_t)m, (uintptr_t)(m + 3 * page));
    mark_drain(&g.bs);
    classify_lost(&g.bs);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_uint_eq(g.bs.bytes_scanned, 3 * page + 32); /* + the block */
    munmap(m, page);
    munmap(m + 2 * page, page);
    graph_free(&g);
}
END_TEST

START_TEST(foreign_blocks_are_walked_through)
{
    /* A fork child's inherited block links the child's own block. */
    static const size_t sizes[] = { 32, 32 };
    struct graph g;
    graph_init(&g, 2, sizes);
    LINK(&g, 0, 1, 1, 0);
    ck_assert_int_eq(blockset_init(&g.bs, 2, &test_ops), 0);
    blockset_add(&g.bs, (uintptr_t)g.blk[0], 32, 1, BLOCK_FOREIGN);
    blockset_add(&g.bs, (uintptr_t)g.blk[1], 32, 2, 0);
    ck_assert_int_eq(blockset_finish(&g.bs), 0);
    mark_value(&g.bs, (uintptr_t)g.blk[0]);
    mark_drain(&g.bs);
    classify_lost(&g.bs);
    ck_assert(block_flags(&g.bs, (size_t)index_of(&g, 0)) & BLOCK_FOREIGN);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_REACHABLE);
    graph_free(&g);
}
END_TEST

START_TEST(loader_blocks_any_pointer_reaches_start_only_leaves)
{
    /* ld.so keeps some of its blocks by an aligned pointer into them (A,
     * reached at +40); its tables keep stale entries past their length:
     * A's interior pointer into B reaches nothing, its start pointer to C
     * does.  D, lost, holds an interior pointer into E: as a loader's
     * block it does not make E indirectly lost. */
    static const size_t sizes[] = { 128, 64, 64, 64, 64 };
    struct graph g;
    graph_init(&g, 5, sizes);
    g.blk[0][0] = 0;
    LINK(&g, 0, 2, 1, 16);
    LINK(&g, 0, 3, 2, 0);
    LINK(&g, 3, 1, 4, 8);
    ck_assert_int_eq(blockset_init(&g.bs, 5, &test_ops), 0);
    for (size_t b = 0; b < 5; b++)
        blockset_add(&g.bs, (uintptr_t)g.blk[b], g.size[b], (uint32_t)b + 1,
                     b == 0 || b == 3 ? BLOCK_LOADER : 0);
    ck_assert_int_eq(blockset_finish(&g.bs), 0);
    uintptr_t roots[] = { (uintptr_t)g.blk[0] + 40 };
    mark_range(&g.bs, (uintptr_t)roots, (uintptr_t)(roots + 1));
    mark_drain(&g.bs);
    ck_assert_int_eq(classify_lost(&g.bs), 0);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_DEFINITE);
    ck_assert_int_eq(verdict_of(&g, 2), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 3), VERDICT_DEFINITE);
    ck_assert_int_eq(verdict_of(&g, 4), VERDICT_DEFINITE);
    graph_free(&g);
}
END_TEST

START_TEST(pool_chunk_is_left_out)
{
    /* A pool's chunk C (a malloc block) holds pool blocks P0 (at its
     * start), P1 and P2; its header word points at P1.  C is no block of
     * the scan (neither scanned nor reported: mark.h, BLOCK_KIND_POOL), so
     * P1 and P0 are lost although the root reaches C; P2, which a root
     * names, keeps the malloc block M it points to. */
    uintptr_t *c = calloc(1, 256), *m = calloc(1, 32);
    uintptr_t p0 = (uintptr_t)c, p1 = p0 + 64, p2 = p0 + 128;
    c[4] = p1;                         /* in C, outside every pool block */
    ((uintptr_t *)p2)[1] = (uintptr_t)m;
    struct blockset bs;
    ck_assert_int_eq(blockset_init(&bs, 5, &test_ops), 0);
    blockset_add(&bs, p1, 32, 2, BLOCK_KIND_POOL);
    blockset_add(&bs, p0, 256, 9, 0); /* C: the same start as P0 */
    blockset_add(&bs, p0, 16, 1, BLOCK_KIND_POOL);
    blockset_add(&bs, p2, 32, 3, BLOCK_KIND_POOL);
    blockset_add(&bs, (uintptr_t)m, 32, 4, 0);
    ck_assert_int_eq(blockset_finish(&bs), 0);
    ck_assert_uint_eq(bs.n, 4);
    ck_assert_int_eq(blockset_find(&bs, p0 + 200), -1);
    long i0 = blockset_find(&bs, p0), i1 = blockset_find(&bs, p1),
         i2 = blockset_find(&bs, p2), im = blockset_find(&bs, (uintptr_t)m);
    ck_assert(i0 >= 0 && i1 >= 0 && i2 >= 0 && im >= 0);
    ck_assert_uint_eq(block_stack(&bs, (size_t)i0), 1);
    uintptr_t roots[] = { p0 + 32, p2 }; /* into C's header; P2 */
    mark_range(&bs, (uintptr_t)roots, (uintptr_t)(roots + 2));
    mark_drain(&bs);
    ck_assert_int_eq(classify_lost(&bs), 0);
    ck_assert_int_eq(block_verdict(&bs, (size_t)i0), VERDICT_DEFINITE);
    ck_assert_int_eq(block_verdict(&bs, (size_t)i1), VERDICT_DEFINITE);
    ck_assert_int_eq(block_verdict(&bs, (size_t)i2), VERDICT_REACHABLE);
    ck_assert_int_eq(block_verdict(&bs, (size_t)im), VERDICT_REACHABLE);
    blockset_destroy(&bs);
    free(c);
    free(m);
}
END_TEST

/* A block that is a sigaltstack (mark_opaque) is reachable and never
 * scanned: what a returned handler left in it keeps nothing; the live
 * part of a stack a handler runs on now is a root range of its own.  A
 * block holding a sigaltstack and more is scanned whole. */
START_TEST(sigaltstack_block_is_opaque)
{
    static const size_t sizes[] = { 4096, 32, 32, 4096 + 256, 32, 32 };
    struct graph g;
    graph_init(&g, 6, sizes);
    LINK(&g, 0, 10, 1, 0);  /* a dead handler frame's copy: lost */
    LINK(&g, 0, 500, 2, 0); /* in the live part: reachable */
    LINK(&g, 3, 10, 4, 0);  /* the stack and more: scanned, as before */
    LINK(&g, 3, 520, 5, 0);
    graph_index(&g);
    uintptr_t a = (uintptr_t)g.blk[0], b = (uintptr_t)g.blk[3];
    mark_opaque(&g.bs, a, a + 4096);
    mark_opaque(&g.bs, b, b + 4096);
    mark_range(&g.bs, a + 400 * 8, a + 4096); /* the live part */
    mark_value(&g.bs, a); /* as roots.c: only the kernel may hold it */
    mark_value(&g.bs, b);
    mark_drain(&g.bs);
    ck_assert_int_eq(classify_lost(&g.bs), 0);
    ck_assert_int_eq(verdict_of(&g, 0), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 1), VERDICT_DEFINITE);
    ck_assert_int_eq(verdict_of(&g, 2), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 3), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 4), VERDICT_REACHABLE);
    ck_assert_int_eq(verdict_of(&g, 5), VERDICT_REACHABLE);
    graph_free(&g);
}
END_TEST

Suite *mark_suite(void)
{
    Suite *s = suite_create("mark");
    TCase *c = tcase_create("graphs");
    tcase_add_test(c, start_pointers_chain_is_reachable);
    tcase_add_test(c, pool_chunk_is_left_out);
    tcase_add_test(c, interior_pointer_is_possibly_lost);
    tcase_add_test(c, later_start_pointer_upgrades_possible);
    tcase_add_test(c, leaked_tree_one_direct_rest_indirect);
    tcase_add_test(c, leaked_cycle_has_one_direct_block);
    tcase_add_test(c, self_pointer_is_definitely_lost);
    tcase_add_test(c, earlier_clique_joins_later_one);
    tcase_add_test(c, reachable_through_possible_stays_possible);
    tcase_add_test(c, zero_sized_block_holds_its_start);
    tcase_add_test(c, new_array_cookie_counts_as_start);
    tcase_add_test(c, heuristics_off_leave_it_possible);
    tcase_add_test(c, length64_and_stdstring);
    tcase_add_test(c, multiple_inheritance_secondary_base);
    tcase_add_test(c, find_agrees_with_brute_force);
    tcase_add_test(c, unaligned_starts_are_sorted_too);
    tcase_add_test(c, long_chain_needs_no_recursion);
    tcase_add_test(c, careful_mode_survives_unmapped_memory);
    tcase_add_test(c, foreign_blocks_are_walked_through);
    tcase_add_test(c, loader_blocks_any_pointer_reaches_start_only_leaves);
    tcase_add_test(c, sigaltstack_block_is_opaque);
    tcase_set_timeout(c, 120);
    suite_add_tcase(s, c);
    return s;
}
