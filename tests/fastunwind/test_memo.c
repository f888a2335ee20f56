/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_memo.c - Check suite: fastunwind's memo of recent walks replays a
 * walk only when it is the same walk, holds as many walks as a C++
 * program's call sites, respects its depth bound, and keeps return
 * addresses that collide in the rule cache memoized.  Every walk is also
 * compared with libunwind's. */
#define _GNU_SOURCE
#include "fu_test.h"
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Two callers with the same frame: the walks start at the same RSP and
 * differ only further up. */
__attribute__((noinline)) static void memo_common(struct capture *c)
{
    capture_here(c);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void memo_via_a(struct capture *c)
{
    memo_common(c);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void memo_via_b(struct capture *c)
{
    memo_common(c);
    __asm__ volatile("nop" ::: "memory");
}

/* A memo for walks of up to DEPTH frames, in use by capture_here()
 * until memo_end(). */
static struct fastunwind_memo *memo_begin_depth(int depth)
{
    struct fastunwind_memo *m = mmap(NULL, fastunwind_memo_size(depth),
                                     PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    fastunwind_memo_init(m, depth);
    capture_with_memo(m);
    return m;
}

static struct fastunwind_memo *memo_begin(void)
{
    return memo_begin_depth(MEMO_TEST_DEPTH);
}

static void memo_end_depth(struct fastunwind_memo *m, int depth)
{
    capture_with_memo(NULL);
    munmap(m, fastunwind_memo_size(depth));
}

static void memo_end(struct fastunwind_memo *m)
{
    memo_end_depth(m, MEMO_TEST_DEPTH);
}

/* The memo replays a walk only when it is the same walk: chains of other
 * depths and VLA frames (RBP-based, never memoized) started from the same
 * place, over and over, must still give libunwind's frames every time. */
START_TEST(test_memo_replays_exactly)
{
    struct fastunwind_memo *m = memo_begin();
    static const int depths[] = { 13, 5, 13, 39, 20, 13, 5, 0, 39, 20 };
    for (int round = 0; round < 50; round++)
        for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++) {
            struct capture c;
            chain0(depths[i], &c);
            ASSERT_SAME(&c);
            with_vla(1 + round % 5, &c);
            ASSERT_SAME(&c);
            if (round % 2)
                memo_via_a(&c);
            else
                memo_via_b(&c);
            ASSERT_SAME(&c);
        }
    /* After a flush nothing is replayed from before it. */
    fastunwind_flush();
    struct capture c;
    chain0(13, &c);
    ASSERT_SAME(&c);
    memo_end(m);
}
END_TEST

/* A memo sized for shallower walks than asked for leaves them alone (its
 * entries have no room for them): every walk correct, none memoized; one
 * sized for them memoizes the same walk. */
START_TEST(test_memo_depth_bound)
{
    int memoized[2];
    const int depths[2] = { MEMO_TEST_DEPTH / 4, MEMO_TEST_DEPTH };
    for (int d = 0; d < 2; d++) {
        struct fastunwind_memo *m = memo_begin_depth(depths[d]);
        for (int round = 0; round < 3; round++) {
            struct capture c;
            chain0(5, &c);
            ASSERT_SAME(&c);
            memoized[d] = fastunwind_memo_user(m) != NULL;
        }
        memo_end_depth(m, depths[d]);
    }
    ck_assert_msg(!memoized[0], "a walk deeper than the memo was memoized");
    ck_assert_msg(memoized[1], "a walk within the memo's depth was not");
}
END_TEST

/* Three call sites of the chain: with 40 depths, 120 distinct walks. */
__attribute__((noinline)) static void many_via_a(int depth, struct capture *c)
{
    chain0(depth, c);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void many_via_b(int depth, struct capture *c)
{
    chain0(depth, c);
    __asm__ volatile("nop" ::: "memory");
}

__attribute__((noinline)) static void many_via_c(int depth, struct capture *c)
{
    chain0(depth, c);
    __asm__ volatile("nop; nop" ::: "memory");
}

#define MANY_WALKS 120

/* A C++ program allocates through operator new from a hundred call sites
 * (bench/wl_cxx: 90 distinct walks): the memo holds that many, and every
 * walk is replayed from the entry made the time before (with 64 entries,
 * replaced in turn, none was).  Each walk is checked against libunwind as
 * well. */
START_TEST(test_memo_holds_many_walks)
{
    static void (*const via[3])(int, struct capture *) = {
        many_via_a, many_via_b, many_via_c
    };
    void **entry[MANY_WALKS];
    int replayed = 0;
    struct fastunwind_memo *m = NULL;
    /* Round 0, without a memo, fills the rule cache (a walk through a rule
     * not cached yet is not memoized); round 1 memoizes every walk, round
     * 2 replays them. */
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            m = memo_begin();
        for (int k = 0; k < MANY_WALKS; k++) {
            struct capture c;
            via[k % 3](k / 3, &c);
            ASSERT_SAME(&c);
            if (round == 0)
                continue;
            void **user = fastunwind_memo_user(m);
            ck_assert_msg(user != NULL, "walk %d was not memoized", k);
            if (round == 1)
                entry[k] = user;
            else
                replayed += user == entry[k];
        }
    }
    memo_end(m);
    ck_assert_msg(replayed == MANY_WALKS, "%d of %d walks replayed", replayed,
                  MANY_WALKS);
}
END_TEST

/* Two frames whose return addresses lie exactly 16 KiB apart (each
 * function starts on a 16 KiB boundary and calls at the same offset):
 * with the rule cache indexed by the low 14 address bits they shared one
 * slot, evicted each other on every walk, and no walk through them was
 * ever memoized.  (Module bases are random above bit 12: between modules
 * that happened in about a third of the runs of bench/wl.) */
__attribute__((noinline, visibility("hidden"))) void collide_leaf(
    struct capture *c);
void collide_leaf(struct capture *c)
{
    capture_here(c);
    __asm__ volatile("" ::: "memory");
}

void collide_a(struct capture *c);
__asm__(".text\n"
        ".p2align 14\n"
        "collide_a:\n"
        ".cfi_startproc\n"
        "subq $8, %rsp\n"
        ".cfi_def_cfa_offset 16\n"
        "call collide_b\n"
        "addq $8, %rsp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".p2align 14\n"
        "collide_b:\n"
        ".cfi_startproc\n"
        "subq $8, %rsp\n"
        ".cfi_def_cfa_offset 16\n"
        "call collide_leaf\n"
        "addq $8, %rsp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n");

START_TEST(test_colliding_return_addresses_stay_cached)
{
    struct fastunwind_memo *m = memo_begin();
    int memoized = 0;
    /* One call site for every round: a compiler that unrolls the loop
     * (clang -O2 does) gives each round its own return address in this
     * frame, a new stack each time, and nothing to replay. */
    volatile int rounds = 4;
    for (int round = 0; round < rounds; round++) {
        struct capture c;
        collide_a(&c);
        ASSERT_SAME(&c);
        memoized = fastunwind_memo_user(m) != NULL;
    }
    memo_end(m);
    ck_assert_msg(memoized, "walks through two return addresses 16 KiB apart "
                            "are never memoized: their rules evict each other");
}
END_TEST

/* A frame-pointer frame (CFA = RBP + 16) above two frames that save RBP
 * as an ordinary register: rbp_keeper saves the frame pointer and loads
 * JUNK into RBP, rbp_junk saves the junk.  The walk reads the junk, then
 * the frame pointer, and only the latter steps a frame: walks that differ
 * only in the junk are the same walk.  (On cc1plus, half the replays that
 * failed on a saved RBP had every return address the same.) */
__attribute__((noinline, visibility("hidden"))) void rbp_leaf(
    struct capture *c);
void rbp_leaf(struct capture *c)
{
    capture_here(c);
    __asm__ volatile("" ::: "memory");
}

void rbp_outer(struct capture *c, uintptr_t junk);
__asm__(".text\n"
        "rbp_outer:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "call rbp_keeper\n"
        "popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        "rbp_keeper:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "movq %rsi, %rbp\n"
        "call rbp_junk\n"
        "popq %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        "rbp_junk:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "call rbp_leaf\n"
        "popq %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n");

START_TEST(test_memo_ignores_saved_rbp_junk)
{
    struct fastunwind_memo *m = memo_begin();
    void **first = NULL;
    int replayed = 0;
    /* Round 0 fills the rule cache, round 1 memoizes, 2-5 replay.  One
     * call site for all: the empty asm keeps a compiler from peeling or
     * unrolling the loop (clang -O2 would). */
    volatile int rounds = 6;
    for (int round = 0; round < rounds; round++) {
        __asm__ volatile("" : "+r"(round));
        struct capture c;
        rbp_outer(&c, 0x5000 + 0x40 * (uintptr_t)round);
        ASSERT_SAME(&c);
        void **user = fastunwind_memo_user(m);
        if (round == 1)
            first = user;
        else if (round > 1)
            replayed += user != NULL && user == first;
    }
    ck_assert_msg(first != NULL, "the second walk was not memoized");
    memo_end(m);
    ck_assert_msg(replayed == rounds - 2,
                  "%d of %d walks that differ only in a saved RBP no CFA "
                  "uses were replayed",
                  replayed, rounds - 2);
}
END_TEST

/* The other way round: a saved RBP that a CFA uses must match.  fp_b is a
 * frame-pointer frame (CFA = RBP + 16) under fp_a; with WHICH set it calls
 * fp_mid with its caller's frame pointer in RBP, so that, by its unwind
 * information, its frame ends at fp_a's and fp_a's frame is skipped
 * (libunwind reads it so too).  fp_mid saves RBP: the only difference
 * between the two walks is that saved value, every return address the
 * first walk read is still in place. */
void fp_a(struct capture *c, int which);
__asm__(".text\n"
        "fp_a:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "call fp_b\n"
        "popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        "fp_b:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "testl %esi, %esi\n"
        "je 1f\n"
        "movq (%rbp), %rbp\n"
        "1: call fp_mid\n"
        "movq %rsp, %rbp\n"
        "popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        "fp_mid:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "call rbp_leaf\n"
        "popq %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n");

START_TEST(test_memo_checks_saved_rbp_used)
{
    struct fastunwind_memo *m = memo_begin();
    volatile int rounds = 8;
    int lengths[2] = { 0, 0 };
    for (int round = 0; round < rounds; round++) {
        struct capture c;
        fp_a(&c, round % 2);
        ASSERT_SAME(&c);
        lengths[round % 2] = c.n[1];
    }
    memo_end(m);
    ck_assert_msg(lengths[1] == lengths[0] - 1,
                  "fp_a's frame should be skipped: %d and %d frames",
                  lengths[0], lengths[1]);
}
END_TEST

/* The same for the RBP a walk starts with: fp_direct, a frame-pointer
 * frame under another, calls the unwinder FN itself (no saved RBP read
 * before its CFA), with its caller's frame pointer in RBP when WHICH is
 * set (its frame then ends at fp_outer's, as in fp_b).  The memoized
 * walk must give what the plain one gives from the same call. */
typedef int (*walk_fn)(void **, int, struct fastunwind_memo *);
int fp_outer(void **frames, int max, struct fastunwind_memo *m, int which,
             walk_fn fn);
__asm__(".text\n"
        "fp_outer:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "call fp_direct\n"
        "popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        "fp_direct:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "testl %ecx, %ecx\n"
        "je 1f\n"
        "movq (%rbp), %rbp\n"
        "1: call *%r8\n"
        "movq %rsp, %rbp\n"
        "popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n");

static int plain_walk(void **frames, int max, struct fastunwind_memo *m)
{
    (void)m;
    return fastunwind_backtrace(frames, max);
}

START_TEST(test_memo_checks_start_rbp)
{
    struct fastunwind_memo *m = memo_begin();
    capture_with_memo(NULL);
    volatile int rounds = 8;
    int lengths[2] = { 0, 0 };
    for (int round = 0; round < rounds; round++) {
        static const walk_fn fns[2] = { fastunwind_backtrace_memo,
                                        plain_walk };
        void *got[2][MEMO_TEST_DEPTH];
        int len[2], which = round % 2;
        /* One call site for both (as capture_max). */
        for (int i = 0; i < 2; i++) {
            __asm__ volatile("" : "+r"(i));
            len[i] = fp_outer(got[i], MEMO_TEST_DEPTH, m, which, fns[i]);
        }
        void **memoized = got[0], **plain = got[1];
        int n = len[0], k = len[1];
        ck_assert_msg(n == k && memcmp(memoized, plain, (size_t)n *
                                                           sizeof *plain) == 0,
                      "round %d: the memo gave %d frames, the walk %d", round,
                      n, k);
        lengths[which] = k;
    }
    memo_end(m);
    ck_assert_msg(lengths[1] == lengths[0] - 1,
                  "fp_outer's frame should be skipped: %d and %d frames",
                  lengths[0], lengths[1]);
}
END_TEST

Suite *memo_suite(void)
{
    Suite *s = suite_create("fastunwind memo");
    TCase *tc = tcase_create("against libunwind");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, test_memo_replays_exactly);
    tcase_add_test(tc, test_memo_depth_bound);
    tcase_add_test(tc, test_memo_holds_many_walks);
    tcase_add_test(tc, test_colliding_return_addresses_stay_cached);
    tcase_add_test(tc, test_memo_ignores_saved_rbp_junk);
    tcase_add_test(tc, test_memo_checks_saved_rbp_used);
    tcase_add_test(tc, test_memo_checks_start_rbp);
    suite_add_tcase(s, tc);
    return s;
}
