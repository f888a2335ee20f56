/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_writer_limits.c - writer.h against the process's limits: a log
 * that reaches RLIMIT_FSIZE (set before or after it was opened) or a pipe
 * whose reader left stops with EFBIG or EPIPE, and the program never gets
 * the SIGXFSZ or SIGPIPE the kernel raises for it. */
#define _GNU_SOURCE
#include "writer_fixture.h"
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static atomic_int xfsz_seen;
static void count_xfsz(int sig)
{
    (void)sig;
    xfsz_seen++;
}

static int sigxfsz_pending(void)
{
    sigset_t pending;
    sigpending(&pending);
    return sigismember(&pending, SIGXFSZ);
}

/* Writing past RLIMIT_FSIZE: the log stops at the limit with EFBIG and
 * the program never receives the SIGXFSZ the kernel raises (its default
 * action would kill it).  Runs in the test's own child process. */
START_TEST(file_size_limit_no_sigxfsz)
{
    char path[512], buf[64];
    static char ref[1 << 20];
    struct rlimit lim = { 4000, 4000 };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_xfsz;
    ck_assert_int_eq(sigaction(SIGXFSZ, &sa, NULL), 0);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    writer_guard_descriptor(&w, path);
    size_t n = emit_records(&w, ref, sizeof ref, 500);
    ck_assert_uint_gt(n, 4000);
    writer_flush(&w);
    ck_assert_int_eq(w.failed, EFBIG);
    ck_assert_int_eq(xfsz_seen, 0);
    ck_assert(!sigxfsz_pending());
    size_t got;
    char *text = ut_slurp(path, &got);
    ck_assert_uint_le(got, 4000);
    ck_assert_uint_gt(got, 4000 - sizeof buf);
    ck_assert(memcmp(text, ref, got) == 0);
    free(text);
    writer_close(&w);
}
END_TEST

/* Default SIGXFSZ action (terminate): the process must survive. */
START_TEST(file_size_limit_default_action)
{
    char path[512], buf[64];
    static char ref[1 << 20];
    struct rlimit lim = { 1000, 1000 };
    signal(SIGXFSZ, SIG_DFL);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    writer_guard_descriptor(&w, path);
    emit_records(&w, ref, sizeof ref, 200);
    writer_flush(&w);
    ck_assert_int_eq(w.failed, EFBIG); /* and we are still alive */
    writer_close(&w);
}
END_TEST

/* A guarded log on a pipe whose reader left: EPIPE, and the SIGPIPE the
 * write raised (default action: terminate) never reaches the program. */
START_TEST(broken_pipe_no_sigpipe)
{
    int p[2];
    char buf[64];
    signal(SIGPIPE, SIG_DFL);
    ck_assert_int_eq(pipe(p), 0);
    struct writer w;
    writer_init(&w, p[1], buf, sizeof buf);
    writer_guard_descriptor(&w, NULL);
    close(p[0]);
    writer_puts(&w, "nobody reads this\n");
    ck_assert_int_eq(writer_flush(&w), EPIPE); /* and we are still alive */
    ck_assert_int_eq(w.failed, EPIPE);
    sigset_t pending;
    sigpending(&pending);
    ck_assert(!sigismember(&pending, SIGPIPE));
    writer_close(&w);
}
END_TEST

/* The limit lowered after the log was opened (by the program itself, or
 * prlimit --pid from outside): still no SIGXFSZ for the program. */
START_TEST(file_size_limit_lowered_later)
{
    char path[512], buf[64];
    static char ref[1 << 20];
    struct rlimit lim;
    signal(SIGXFSZ, SIG_DFL);
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
    if (lim.rlim_cur != RLIM_INFINITY)
        return; /* the runner itself is limited: nothing to lower later */
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    writer_guard_descriptor(&w, path);
    lim.rlim_cur = 1000;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    emit_records(&w, ref, sizeof ref, 200);
    writer_flush(&w);
    ck_assert_int_eq(w.failed, EFBIG); /* and we are still alive */
    writer_close(&w);
}
END_TEST

Suite *writer_limits_suite(void)
{
    Suite *s = suite_create("writer_limits");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, writer_fixture_setup,
                              writer_fixture_teardown);
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, file_size_limit_no_sigxfsz);
    tcase_add_test(tc, file_size_limit_default_action);
    tcase_add_test(tc, broken_pipe_no_sigpipe);
    tcase_add_test(tc, file_size_limit_lowered_later);
    suite_add_tcase(s, tc);
    return s;
}
