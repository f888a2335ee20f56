/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the records of blocks that are not malloc's (replay/
 * xblocks.c): "#b", "#x", "#P" and "#k" replayed by the engine, the
 * blocks live at the end, their verdicts, and the malloc block at the
 * same address kept apart.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "unit.h"
#include "replay/engine.h"
#include "replay/xblocks.h"
#include "symbolize/symbolizer.h"

static void feed(struct engine *e, const char *log)
{
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        engine_line(e, p, len);
        p += len + (nl != NULL);
    }
}

/* The live block of KIND at ADDR, or NULL. */
static const struct xblock *live(const struct engine *e, enum block_kind kind,
                                 uint64_t addr)
{
    for (size_t i = 0; i < e->xb.n; i++)
        if (e->xb.b[i].live && e->xb.b[i].kind == kind &&
            e->xb.b[i].addr == addr)
            return &e->xb.b[i];
    return NULL;
}

static enum leak_class cls(const struct engine *e, enum block_kind kind,
                           uint64_t addr)
{
    uint64_t indirect;
    const struct xblock *b = live(e, kind, addr);
    ck_assert_ptr_nonnull(b);
    return xblocks_class(&e->xb, &e->verdicts, b, &indirect);
}

#define HEAD "= Start\n#v 1 pid=1\n#s 1 -:0x10\n#s 2 -:0x20\n"

START_TEST(lifetimes)
{
    struct engine e;
    engine_init(&e, NULL);
    feed(&e, HEAD
         "#P new 1 requests pool\n#P new 2 other\n"
         "#b pool 0x1000 0x10 s1 1\n#b pool 0x1010 0x20 s2 1\n"
         "#b pool 0x2000 0x30 s1 2\n#b pool 0x2040 0x30 s1 2\n"
         "#x pool 0x1010\n#P destroy 2\n"
         "#b mmap 0x7000 0x3000 s2\n#x mmap 0x7000\n"
         "#b mmap 0x7000 0x1000 s2\n#b mmap 0x9000 0x1000 s2\n"
         "#b pool 0x1000 0x40 s2 1\n");
    ck_assert_uint_eq(e.xb.live, 3);
    ck_assert_uint_eq(e.xb.bad_records, 0);
    const struct xblock *b = live(&e, KIND_POOL, 0x1000);
    ck_assert_ptr_nonnull(b); /* the second "#b" replaced the first */
    ck_assert_uint_eq(b->size, 0x40);
    ck_assert_uint_eq(b->pool, 1);
    ck_assert_ptr_null(live(&e, KIND_POOL, 0x1010));
    ck_assert_ptr_null(live(&e, KIND_POOL, 0x2000));
    ck_assert_ptr_nonnull(live(&e, KIND_MMAP, 0x7000));
    ck_assert_ptr_nonnull(live(&e, KIND_MMAP, 0x9000));
    ck_assert_str_eq(xblocks_pool_name(&e.xb, 1), "requests pool");
    ck_assert_uint_eq(e.table.count, 0); /* no malloc block */
    engine_destroy(&e);
}
END_TEST

START_TEST(verdicts_by_kind)
{
    struct engine e;
    engine_init(&e, NULL);
    /* A pool block where its malloc chunk starts: "#k" is the pool
     * block's verdict, "#c" the chunk's; neither takes the other's. */
    feed(&e, HEAD "+ 0x1000 0x1000 s1\n#b pool 0x1000 0x10 s2 1\n"
                  "#b pool 0x1010 0x10 s2 1\n#b mmap 0x7000 0x1000 s2\n"
                  "#C scan seq=1 trigger=exit\n#k pool 0x1000 d 16\n"
                  "#k pool 0x1010 i\n#k mmap 0x7000 p\n"
                  "#b pool 0x1020 0x10 s2 1\n");
    ck_assert_int_eq(cls(&e, KIND_POOL, 0x1000), CLASS_DEFINITE);
    ck_assert_int_eq(cls(&e, KIND_POOL, 0x1010), CLASS_INDIRECT);
    ck_assert_int_eq(cls(&e, KIND_MMAP, 0x7000), CLASS_POSSIBLE);
    ck_assert_int_eq(cls(&e, KIND_POOL, 0x1020), CLASS_UNKNOWN);
    uint64_t indirect;
    struct block **all;
    size_t n;
    all = table_collect(&e.table, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(verdicts_class(&e.verdicts, all[0], &indirect),
                     CLASS_REACHABLE);
    free(all);
    /* A later scan replaces the verdicts: no "#k" now, all reachable. */
    feed(&e, "#C scan seq=2 trigger=exit\n");
    ck_assert_int_eq(cls(&e, KIND_POOL, 0x1000), CLASS_REACHABLE);
    ck_assert_int_eq(cls(&e, KIND_POOL, 0x1020), CLASS_REACHABLE);
    engine_destroy(&e);
}
END_TEST

START_TEST(bad_records)
{
    struct engine e;
    engine_init(&e, NULL);
    feed(&e, HEAD "#b heap 0x1 0x1 s1\n#b pool 1 0x1 s1\n#b pool 0x1 zz s1\n"
                  "#b pool 0x1 0x1 s1 x\n#x pool\n#P rename 1\n#P new x y\n"
                  "#k pool 0x1 d\n" /* before any scan */
                  "#C scan seq=1\n#k pool 0x1 r\n#k pool 0x1 d 1 2\n");
    ck_assert_uint_eq(e.xb.bad_records, 10);
    ck_assert_uint_eq(e.xb.live, 0);
    engine_destroy(&e);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("xblocks");
    TCase *tc = tcase_create("core");
    sym_init();
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, lifetimes);
    tcase_add_test(tc, verdicts_by_kind);
    tcase_add_test(tc, bad_records);
    suite_add_tcase(s, tc);
    return s;
}
