/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunkwords.c - the words glibc leaves in a chunk it hands out
 * (chunkwords.h): glibc's own malloc in the test runner (never
 * interposed), its free lists filled by frees, then the clearing. */
#include "unit.h"
#include "base/chunkwords.h"
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

START_TEST(recycled_chunk_keeps_list_words_until_cleared)
{
    /* Small and large chunks, freed with a neighbour kept so that they go
     * to glibc's bins (past the thread cache: 8 of a size fill it). */
    static const size_t sizes[] = { 200, 1500, 5000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        void *held[16], *guard[16];
        for (int i = 0; i < 16; i++) {
            held[i] = malloc(n);
            guard[i] = malloc(32);
            memset(held[i], 0xa5, n);
        }
        for (int i = 0; i < 16; i++)
            free(held[i]);
        int stale = 0;
        for (int i = 0; i < 16; i++) {
            unsigned char *p = malloc(n);
            stale += !all_zero(p, CHUNK_LIST_BYTES);
            chunkwords_clear_new(p, n);
            ck_assert_msg(all_zero(p, n & ~(size_t)7), "size %zu: not zeroed", n);
            held[i] = p;
        }
        ck_assert_msg(stale > 0, "size %zu: glibc left no list words "
                                 "(the test no longer sees what it guards "
                                 "against)",
                      n);
        for (int i = 0; i < 16; i++) {
            free(held[i]);
            free(guard[i]);
        }
    }
}
END_TEST

START_TEST(past_the_limit_only_list_words)
{
    size_t n = CHUNK_ZERO_MAX + 4096;
    /* Below the mmap threshold: a chunk of the heap. */
    mallopt(M_MMAP_THRESHOLD, (int)(4 * n));
    unsigned char *p = malloc(n);
    memset(p, 0x5a, n);
    chunkwords_clear_new(p, n);
    ck_assert(all_zero(p, CHUNK_LIST_BYTES));
    ck_assert_int_eq(p[CHUNK_LIST_BYTES], 0x5a);
    ck_assert_int_eq(p[n - 1], 0x5a);
    free(p);
    /* A chunk mapped for the block alone is fresh: left as it is. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    p = malloc(4 * n);
    ck_assert(((const size_t *)p)[-1] & CHUNK_IS_MMAPPED_BIT);
    p[0] = 7;
    chunkwords_clear_new(p, 4 * n);
    ck_assert_int_eq(p[0], 7);
    free(p);
}
END_TEST

START_TEST(tiny_blocks_within_their_size)
{
    unsigned char buf[40];
    memset(buf, 0x11, sizeof buf);
    chunkwords_clear_new(buf, 12); /* a whole word only */
    ck_assert(all_zero(buf, 8));
    ck_assert_int_eq(buf[8], 0x11);
    memset(buf, 0x11, sizeof buf);
    chunkwords_clear_new(buf, 0);
    ck_assert_int_eq(buf[0], 0x11);
}
END_TEST

START_TEST(grown_block_keeps_the_old_bytes)
{
    unsigned char buf[256];
    memset(buf, 0x22, sizeof buf);
    chunkwords_clear_grown(buf, 21, 200); /* from the word after 21 */
    ck_assert_int_eq(buf[23], 0x22);
    ck_assert(all_zero(buf + 24, 200 - 24));
    ck_assert_int_eq(buf[200], 0x22);
    memset(buf, 0x22, sizeof buf);
    chunkwords_clear_grown(buf, 200, 100); /* shrunk: nothing */
    ck_assert_int_eq(buf[150], 0x22);
}
END_TEST

Suite *chunkwords_suite(void)
{
    Suite *s = suite_create("chunkwords");
    TCase *c = tcase_create("clearing");
    if (!UT_SANITIZED) { /* glibc's chunks: not the sanitizer's malloc */
        tcase_add_test(c, recycled_chunk_keeps_list_words_until_cleared);
        tcase_add_test(c, past_the_limit_only_list_words);
    }
    tcase_add_test(c, tiny_blocks_within_their_size);
    tcase_add_test(c, grown_block_keeps_the_old_bytes);
    suite_add_tcase(s, c);
    return s;
}
