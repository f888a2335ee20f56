/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests: the parallel replay (replay.c, speculate.c) must print
 * exactly what the replay of every line on one thread prints, text and
 * JSON, for logs made to break it: warnings across segment boundaries,
 * addresses without "0x", "#v" and "#s" records in the middle, stack ids
 * defined again, used before their record or never defined, "#e" records,
 * long lines, a last line without a newline; at every segment size from
 * one line up, on 1 to 4 threads, mapped and read through a pipe.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "unit.h"
#include "output/outputs.h"
#include "replay/engine.h"
#include "read/feeder.h"
#include "replay/replay.h"
#include "symbolize/symbolizer.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

/* A log of N random lines drawn from a small set of addresses, so that
 * every kind of event meets every state. */
static char *random_log(unsigned seed, int n, int extended, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);

    fputs("= Start\n", f);
    if (extended == 1)
        fputs("#v 1 pid=1\n", f);
    for (int i = 0; i < n; i++) {
        unsigned r = rnd(&seed), a = (r >> 4) % 24, k = r % 100;
        const char *where = (r >> 9) % 3 ? "@ ./t:[0x11b1] " : "";
        if (k < 30)
            fprintf(f, "%s+ 0x%x 0x%x s%u\n", where, a, k, (r >> 12) % 6);
        else if (k < 55)
            fprintf(f, "%s- 0x%x s%u\n", where, a, (r >> 12) % 6);
        else if (k < 62)
            fprintf(f, "%s< 0x%x\n", where, a);
        else if (k < 70)
            fprintf(f, "%s> 0x%x 0x%x s%u\n", where, a, k, (r >> 12) % 6);
        else if (k < 73)
            fprintf(f, "+ %x 0x1 s1\n", a); /* no 0x: not recorded */
        else if (k < 75)
            fprintf(f, "> %x 0x2\n", a); /* recorded all the same */
        else if (k < 82)
            fprintf(f, "#s %u -:0x%x -:0x%x\n", (r >> 12) % 6, a, k);
        else if (k < 84)
            fprintf(f, "#s %u 7:0x1\n", (r >> 12) % 6); /* dangling */
        else if (k < 85 && extended == 2)
            fputs("#v 1 pid=2\n", f); /* extended from here on */
        else if (k < 87)
            fprintf(f, "#e %s\n", k == 85 ? "exit" : "signal sig=11");
        else if (k < 88)
            fprintf(f, "#f - 0x%x 0x1 fn%u\n", a, k);
        else if (k < 89)
            fputs("! 0x3 0x5\n", f);
        else if (k < 90)
            fputs("\n", f);
        else
            fprintf(f, "%s+ 0x%x 0x%x\n", where, a + 100 * (i / 500), k);
    }
    fputs("#e exe", f); /* cut: does not count */
    fclose(f);
    return text;
}

/* Replay the log at PATH (through a pipe if PIPED): report text. */
static char *check(const char *path, int json, int threads, size_t segment,
                   int piped, struct replay_stats *stats)
{
    char *text = NULL, cmd[128];
    size_t size = 0;
    FILE *out = open_memstream(&text, &size), *pipe = NULL;
    struct source src;
    struct options opt = { .json = json, .quiet = 1, .log = "log" };
    struct outputs x;
    struct engine e;
    int failing;

    if (piped) {
        snprintf(cmd, sizeof cmd, "cat %s", path);
        pipe = popen(cmd, "r");
        src_open_fd(&src, fileno(pipe));
    } else {
        ck_assert_int_eq(src_open(&src, path), 0);
    }
    engine_init(&e, NULL);
    outputs_begin(&x, &opt, &e, out, -1);
    ck_assert_int_eq(replay_log(&src, &e, "log", threads, segment, stats), 0);
    outputs_release(&x, e.is_trace || e.ext.extended);
    ck_assert_int_eq(outputs_end(&x, &e, NULL, &failing), 0);
    engine_destroy(&e);
    src_close(&src);
    if (pipe)
        pclose(pipe);
    fclose(out);
    return text;
}

static char *write_temp(const char *text, size_t len)
{
    static char path[64];
    strcpy(path, "/tmp/mtc-replay-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* Every configuration against the plain replay, for the log at PATH; returns
 * how many segments were applied from their own replay. */
static uint64_t compare_all(const char *path)
{
    static const size_t segments[] = { 1, 2, 40, 300, 4096, 0 };
    uint64_t applied = 0;

    for (int json = 0; json < 2; json++) {
        char *want = check(path, json, 0, 0, 0, NULL);
        ck_assert(strlen(want) > 40);
        for (size_t s = 0; s < sizeof segments / sizeof segments[0]; s++) {
            for (int threads = 1; threads <= 4; threads++) {
                struct replay_stats st;
                int piped = (s + (size_t)threads) % 2;
                char *got = check(path, json, threads, segments[s], piped, &st);
                if (strcmp(want, got) != 0)
                    ck_abort_msg("%s: %d threads, segments of %zu bytes, %s: "
                                 "the report differs",
                                 json ? "JSON" : "text", threads, segments[s],
                                 piped ? "piped" : "mapped");
                applied += st.segments - st.replayed;
                free(got);
            }
        }
        free(want);
    }
    return applied;
}

START_TEST(parallel_same_as_serial)
{
    for (unsigned seed = 1; seed <= 12; seed++) {
        size_t len;
        char *log = random_log(seed, 3000, (int)seed % 3, &len);
        char *path = write_temp(log, len);
        uint64_t applied = compare_all(path);
        /* Most segments must have been taken from their own replay, or
         * the test would only compare the serial replay with itself. */
        ck_assert_uint_gt(applied, 100);
        unlink(path);
        free(log);
    }
}
END_TEST

/* A log with no warning at all: every segment is applied as replayed. */
START_TEST(clean_log_never_replayed_again)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("= Start\n#v 1\n#s 1 -:0x10\n", f);
    for (int i = 0; i < 200000; i++) {
        fprintf(f, "+ 0x%x 0x10 s1\n", 0x1000 + i % 700);
        if (i >= 300)
            fprintf(f, "- 0x%x s1\n", 0x1000 + (i - 300) % 700);
    }
    fputs("#e exit\n", f);
    fclose(f);
    char *path = write_temp(text, len);
    struct replay_stats st;
    char *one = check(path, 0, 0, 0, 0, NULL);
    char *two = check(path, 0, 2, 1 << 16, 0, &st);
    ck_assert_str_eq(one, two);
    ck_assert_uint_gt(st.segments, 20);
    ck_assert_uint_eq(st.replayed, 0);
    free(one);
    free(two);
    free(text);
    unlink(path);
}
END_TEST

/* replay_share_cores: the helpers call the hook before each segment, the
 * calling thread never does, and the report is the same as without it. */
static pthread_t caller;
static int waits, caller_waited;

static void count_wait(void)
{
    if (pthread_equal(pthread_self(), caller))
        caller_waited = 1;
    __atomic_add_fetch(&waits, 1, __ATOMIC_RELAXED);
}

START_TEST(helpers_wait_their_turn)
{
    size_t len;
    char *log = random_log(7, 20000, 1, &len);
    char *path = write_temp(log, len);
    char *want = check(path, 0, 0, 0, 0, NULL);
    caller = pthread_self();
    waits = caller_waited = 0;
    replay_share_cores(count_wait);
    for (int threads = 2; threads <= 3; threads++) {
        char *got = check(path, 0, threads, 4096, 0, NULL);
        ck_assert_str_eq(want, got);
        free(got);
    }
    replay_share_cores(NULL);
    ck_assert_int_gt(waits, 2);
    ck_assert_int_eq(caller_waited, 0);
    free(want);
    free(log);
    unlink(path);
}
END_TEST

/* A line past the limit is skipped, counted, and the rest is right. */
START_TEST(long_line_counts)
{
    size_t big = FEED_LINE_MAX + 10;
    char *text = malloc(big + 256);
    size_t n = (size_t)sprintf(text, "= Start\n+ 0x1 0x2\n");
    memset(text + n, 'x', big);
    n += big;
    n += (size_t)sprintf(text + n, "\n- 0x9\n+ 0x1 0x3\n");
    char *path = write_temp(text, n);
    for (int threads = 0; threads <= 2; threads++) {
        char *t = check(path, 0, threads, 64, 0, NULL);
        ck_assert_str_eq(t, "- 0x0000000000000009 Free 4 was never alloc'd \n"
                            "+ 0x0000000000000001 Alloc 5 duplicate:  \n"
                            "\nMemory not freed:\n-----------------\n"
                            "           Address     Size     Caller\n"
                            "0x0000000000000001      0x2  at \n");
        free(t);
    }
    unlink(path);
    free(text);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("core");
    sym_init();
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, parallel_same_as_serial);
    tcase_add_test(tc, clean_log_never_replayed_again);
    tcase_add_test(tc, helpers_wait_their_turn);
    tcase_add_test(tc, long_line_counts);
    suite_add_tcase(s, tc);
    return s;
}
