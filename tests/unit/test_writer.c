/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_writer.c - writer.h: buffering with flushes mid-line, byte-exact
 * output through files and pipes, failures (ENOSPC, EAGAIN, EPIPE), EINTR
 * and short writes (injected, and real ones from signals), descriptor
 * guarding.  Running into limits (RLIMIT_FSIZE, a reader gone):
 * test_writer_limits.c. */
#define _GNU_SOURCE
#include "writer_fixture.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The runner is linked with --wrap=write, so every write(2) of the writer
 * comes here.  Only descriptor inject_fd is touched: in INJECT mode one
 * call in four fails with EINTR and one in four is cut short; in OBSERVE
 * mode calls pass through and interrupted or short results are counted. */
enum { PASS, INJECT, OBSERVE, NO_PROGRESS };
static int inject_fd = -1, inject_mode;
static uint64_t inject_seed = 42;
static atomic_int n_eintr, n_short;
/* OBSERVE mode also records where each write(2) ended in the stream. */
static size_t observed_total, boundaries[4096];
static int n_boundaries;

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    if (fd != inject_fd || inject_mode == PASS || n == 0)
        return __real_write(fd, buf, n);
    if (inject_mode == NO_PROGRESS)
        return 0;
    if (inject_mode == INJECT) {
        uint64_t r = ut_rand(&inject_seed) % 4;
        if (r == 0) {
            n_eintr++;
            errno = EINTR;
            return -1;
        }
        if (r == 1 && n > 1) {
            n_short++;
            n = 1 + ut_rand(&inject_seed) % (n - 1);
        }
        return __real_write(fd, buf, n);
    }
    ssize_t done = __real_write(fd, buf, n);
    if (done < 0 && errno == EINTR)
        n_eintr++;
    else if (done >= 0 && (size_t)done < n)
        n_short++;
    if (done > 0) {
        observed_total += (size_t)done;
        if (n_boundaries < (int)(sizeof boundaries / sizeof boundaries[0]))
            boundaries[n_boundaries++] = observed_total;
    }
    return done;
}

static void setup(void)
{
    writer_fixture_setup();
    inject_fd = -1;
    inject_mode = PASS;
    n_eintr = n_short = 0;
    observed_total = 0;
    n_boundaries = 0;
}

START_TEST(small_buffer_file)
{
    char path[512], buf[7]; /* 7 bytes: every record is split across flushes */
    static char ref[1 << 20];
    struct writer w;
    int fd = open_tmp("log", path, sizeof path);
    writer_init(&w, fd, buf, sizeof buf);
    size_t n = emit_records(&w, ref, sizeof ref, 5000);
    /* Only what does not fit the buffer has been written so far. */
    ck_assert_uint_le(w.len, sizeof buf);
    ck_assert_uint_eq((size_t)file_size(path) + w.len, n);
    ck_assert_int_eq(writer_flush(&w), 0);
    ck_assert_int_eq(w.failed, 0);
    size_t got;
    char *text = ut_slurp(path, &got);
    ck_assert_uint_eq(got, n);
    ck_assert(memcmp(text, ref, n) == 0);
    free(text);
    writer_close(&w);
}
END_TEST

/* Puts of random lengths into buffers of random capacities, 1..64. */
START_TEST(random_puts_random_caps)
{
    static char data[300000];
    uint64_t seed = 99;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)ut_rand(&seed);
    for (int round = 0; round < 20; round++) {
        char path[512], name[32], buf[64];
        snprintf(name, sizeof name, "r%d", round);
        struct writer w;
        size_t cap = 1 + ut_rand(&seed) % sizeof buf;
        writer_init(&w, open_tmp(name, path, sizeof path), buf, cap);
        for (size_t off = 0; off < sizeof data;) {
            size_t part = ut_rand(&seed) % 200;
            if (part > sizeof data - off)
                part = sizeof data - off;
            writer_put(&w, data + off, part);
            off += part;
        }
        ck_assert_int_eq(writer_flush(&w), 0);
        size_t got;
        char *text = ut_slurp(path, &got);
        ck_assert_uint_eq(got, sizeof data);
        ck_assert_msg(memcmp(text, data, got) == 0, "cap %zu corrupts", cap);
        free(text);
        writer_close(&w);
    }
}
END_TEST

struct drain {
    int fd;
    char *out;
    size_t len, cap;
    unsigned pause_us; /* between reads: keeps the pipe full */
};

static void *drain_pipe(void *arg)
{
    struct drain *d = arg;
    for (;;) {
        ssize_t n = read(d->fd, d->out + d->len,
                         1500 < d->cap - d->len ? 1500 : d->cap - d->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        d->len += (size_t)n;
        if (d->pause_us)
            usleep(d->pause_us);
    }
    return NULL;
}

START_TEST(pipe_small_buffer)
{
    int p[2];
    char buf[5];
    static char ref[1 << 20], out[1 << 20];
    ck_assert_int_eq(pipe(p), 0);
    struct drain d = { p[0], out, 0, sizeof out, 0 };
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, drain_pipe, &d), 0);
    struct writer w;
    writer_init(&w, p[1], buf, sizeof buf);
    size_t n = emit_records(&w, ref, sizeof ref, 3000);
    ck_assert_int_eq(writer_flush(&w), 0);
    writer_close(&w); /* EOF for the reader */
    pthread_join(reader, NULL);
    close(p[0]);
    ck_assert_uint_eq(d.len, n);
    ck_assert(memcmp(out, ref, n) == 0);
}
END_TEST

START_TEST(dev_full_fails_once_then_noop)
{
    char buf[16];
    struct writer w;
    int fd = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(fd, 0);
    writer_init(&w, fd, buf, sizeof buf);
    writer_puts(&w, "0123456789");
    ck_assert_int_eq(w.failed, 0); /* still buffered */
    writer_puts(&w, "abcdefghij"); /* overflows: the flush fails */
    ck_assert_int_eq(w.failed, ENOSPC);
    writer_puts(&w, "more");
    writer_dec(&w, 12345);
    ck_assert_uint_eq(w.len, 0); /* later puts are no-ops */
    ck_assert_int_eq(writer_flush(&w), ENOSPC);
    ck_assert_int_eq(w.failed, ENOSPC);
    writer_close(&w);
}
END_TEST

START_TEST(dev_full_explicit_flush)
{
    char buf[64];
    struct writer w;
    int fd = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(fd, 0);
    writer_init(&w, fd, buf, sizeof buf);
    writer_puts(&w, "line\n");
    ck_assert_int_eq(writer_flush(&w), ENOSPC);
    ck_assert_int_eq(w.failed, ENOSPC);
    ck_assert_int_eq(write_all(fd, "x", 1), ENOSPC);
    writer_close(&w);
}
END_TEST

/* Deterministic EINTR and short writes: output must still be exact. */
START_TEST(injected_eintr_and_short_writes)
{
    char path[512], buf[4096];
    static char ref[1 << 20];
    struct writer w;
    int fd = open_tmp("log", path, sizeof path);
    writer_init(&w, fd, buf, sizeof buf);
    inject_fd = fd;
    inject_mode = INJECT;
    size_t n = emit_records(&w, ref, sizeof ref, 8000);
    ck_assert_int_eq(writer_flush(&w), 0);
    ck_assert_int_eq(write_all(fd, "tail\n", 5), 0);
    inject_mode = PASS;
    ck_assert_int_gt(n_eintr, 10);
    ck_assert_int_gt(n_short, 10);
    memcpy(ref + n, "tail\n", 5);
    size_t got;
    char *text = ut_slurp(path, &got);
    ck_assert_uint_eq(got, n + 5);
    ck_assert(memcmp(text, ref, got) == 0);
    free(text);
    writer_close(&w);
}
END_TEST

START_TEST(no_progress_gives_error)
{
    char path[512];
    int fd = open_tmp("log", path, sizeof path);
    inject_fd = fd;
    inject_mode = NO_PROGRESS;
    /* A write that returns 0 forever must not hang write_all. */
    ck_assert_int_ne(write_all(fd, "abc", 3), 0);
    inject_mode = PASS;
    close(fd);
}
END_TEST

static atomic_int signals_seen;
static atomic_int stop_signalling;

static void count_signal(int sig)
{
    (void)sig;
    signals_seen++;
}

static void *signaller(void *arg)
{
    pthread_t target = *(pthread_t *)arg;
    while (!stop_signalling) {
        pthread_kill(target, SIGUSR1);
        usleep(200);
    }
    return NULL;
}

/* Real interruptions: a 4 KiB pipe drained slowly by a reader thread,
 * while another thread keeps signalling the writer through a handler
 * installed without SA_RESTART, so blocked writes return early. */
START_TEST(signals_interrupt_pipe_writes)
{
    int p[2];
    static char buf[65536], ref[1 << 20], out[1 << 20];
    ck_assert_int_eq(pipe(p), 0);
    if (fcntl(p[1], F_SETPIPE_SZ, 4096) < 0)
        ck_abort_msg("F_SETPIPE_SZ: %s", strerror(errno));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_signal; /* no SA_RESTART */
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    /* Helpers start with SIGUSR1 blocked: every signal hits the writer. */
    sigset_t usr1, old;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old);
    pthread_t self = pthread_self(), reader, killer;
    struct drain d = { p[0], out, 0, sizeof out, 20 };
    ck_assert_int_eq(pthread_create(&reader, NULL, drain_pipe, &d), 0);
    ck_assert_int_eq(pthread_create(&killer, NULL, signaller, &self), 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    struct writer w;
    writer_init(&w, p[1], buf, sizeof buf);
    inject_fd = p[1];
    inject_mode = OBSERVE;
    size_t n = emit_records(&w, ref, sizeof ref, 12000);
    int err = writer_flush(&w);
    inject_mode = PASS;
    stop_signalling = 1;
    pthread_join(killer, NULL);
    writer_close(&w);
    pthread_join(reader, NULL);
    close(p[0]);

    ck_assert_int_eq(err, 0);
    ck_assert_int_eq(w.failed, 0);
    ck_assert_int_gt(signals_seen, 0);
    ck_assert_msg(n_eintr + n_short > 0, "no write was interrupted");
    ck_assert_uint_eq(d.len, n);
    ck_assert(memcmp(out, ref, n) == 0);
}
END_TEST

static int small_nonblocking_pipe(int p[2])
{
    ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
    int size = fcntl(p[1], F_SETPIPE_SZ, 4096);
    ck_assert_int_gt(size, 0);
    return size;
}

/* A full nonblocking pipe: write_all gives up with EAGAIN after writing
 * what fits (a short write), and the writer records the failure. */
START_TEST(nonblocking_full_pipe)
{
    int p[2];
    int size = small_nonblocking_pipe(p);
    static char data[3 * 65536], back[3 * 65536];
    uint64_t seed = 3;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)('a' + ut_rand(&seed) % 26);
    ck_assert_int_eq(write_all(p[1], data, sizeof data), EAGAIN);
    ssize_t got = read(p[0], back, sizeof back);
    ck_assert_int_eq(got, size); /* exactly what fitted */
    ck_assert(memcmp(back, data, (size_t)got) == 0);

    /* Fill it again; now the writer's flush fails. */
    ck_assert_int_eq(write_all(p[1], data, sizeof data), EAGAIN);
    char buf[32];
    struct writer w;
    writer_init(&w, p[1], buf, sizeof buf);
    writer_puts(&w, "x");
    ck_assert_int_eq(writer_flush(&w), EAGAIN);
    ck_assert_int_eq(w.failed, EAGAIN);
    writer_puts(&w, "y");
    ck_assert_uint_eq(w.len, 0);
    close(p[0]);
    close(p[1]);
}
END_TEST

START_TEST(write_all_errors)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    ck_assert_int_eq(write_all(p[1], "abc", 3), EPIPE);
    close(p[1]);
    ck_assert_int_eq(write_all(p[1], "abc", 3), EBADF);
    ck_assert_int_eq(write_all(p[1], "", 0), 0); /* nothing to do */
}
END_TEST

START_TEST(no_descriptor_is_noop)
{
    char buf[4];
    struct writer w;
    writer_init(&w, -1, buf, sizeof buf);
    writer_puts(&w, "hello world");
    writer_dec(&w, 77);
    ck_assert_uint_eq(w.len, 0);
    ck_assert_int_eq(writer_flush(&w), 0);
    ck_assert_int_eq(w.failed, 0);
}
END_TEST

START_TEST(discard_forgets_buffer)
{
    char path[512], buf[64];
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    writer_puts(&w, "parent's bytes");
    writer_discard(&w);
    writer_puts(&w, "child\n");
    ck_assert_int_eq(writer_flush(&w), 0);
    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "child\n");
    free(text);
    writer_close(&w);
}
END_TEST

START_TEST(unbuffered_flushes_at_newline)
{
    char path[512], buf[64];
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    w.unbuffered = 1;
    writer_puts(&w, "+ 0x10 ");
    writer_puts(&w, "0x20");
    ck_assert_int_eq(file_size(path), 0); /* no line end yet */
    writer_putc(&w, '\n');
    ck_assert_int_eq(file_size(path), 12);
    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "+ 0x10 0x20\n");
    free(text);
    writer_close(&w);
}
END_TEST

/* A drain (a compressed log) in place of write(2): it gets the full
 * buffer (ROOM, and may hand the writer another), writer_flush (OUT, even
 * with nothing buffered: it may hold bytes of its own), the nowait flush,
 * and the close; its EAGAIN (a vfork() child) leaves the bytes buffered,
 * its other errors fail the writer. */
static char drained[256], spare[8];
static int drained_len, calls[WRITER_CLOSE + 1], drain_error;

static int test_drain(struct writer *w, enum writer_drain how)
{
    calls[how]++;
    if (drain_error)
        return drain_error;
    memcpy(drained + drained_len, w->buf, w->len);
    drained_len += (int)w->len;
    w->len = 0;
    if (how == WRITER_ROOM)
        w->buf = spare;
    return 0;
}

START_TEST(drain_instead_of_write)
{
    char buf[8];
    struct writer w;
    writer_init(&w, 99, buf, sizeof buf); /* never written to */
    w.drain = test_drain;
    writer_puts(&w, "0123456789ab");
    ck_assert_int_eq(calls[WRITER_ROOM], 1);
    ck_assert_ptr_eq(w.buf, spare);
    ck_assert_int_eq(writer_flush(&w), 0);
    ck_assert_int_eq(writer_flush(&w), 0);
    ck_assert_int_eq(calls[WRITER_OUT], 2);
    drained[drained_len] = '\0';
    ck_assert_str_eq(drained, "0123456789ab");
    ck_assert_int_eq(writer_flush_nowait(&w), 0);
    ck_assert_int_eq(calls[WRITER_OUT_NOWAIT], 1);
    writer_puts(&w, "xy");
    drain_error = EAGAIN;
    ck_assert_int_eq(writer_flush(&w), EAGAIN);
    ck_assert_uint_eq(w.len, 2);
    ck_assert_int_eq(w.failed, 0);
    drain_error = ENOSPC;
    ck_assert_int_eq(writer_flush(&w), ENOSPC);
    ck_assert_int_eq(w.failed, ENOSPC);
    writer_puts(&w, "more");
    ck_assert_int_eq(calls[WRITER_OUT], 4); /* failed: nothing more */
    writer_close(&w);
    ck_assert_int_eq(calls[WRITER_CLOSE], 1);
    ck_assert_int_eq(w.fd, -1);
}
END_TEST

static int fd_is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1;
}

/* The program dup2()s over the log's descriptor: the next flush must
 * reopen the log by name and append, leaving the program's file alone. */
START_TEST(guard_survives_dup2_over_descriptor)
{
    char path[512], other[512], buf[64];
    struct writer w;
    int fd = open_tmp("log", path, sizeof path);
    writer_init(&w, fd, buf, sizeof buf);
    writer_guard_descriptor(&w, path);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur > 1000) {
        ck_assert_int_ge(w.fd, 900);
        ck_assert(!fd_is_open(fd)); /* the low number is given back */
    }
    ck_assert(fcntl(w.fd, F_GETFD) & FD_CLOEXEC);
    writer_puts(&w, "one\n");
    ck_assert_int_eq(writer_flush(&w), 0);

    int theirs = open_tmp("other", other, sizeof other);
    int slot = w.fd;
    ck_assert_int_eq(dup2(theirs, slot), slot);
    writer_puts(&w, "two\n");
    ck_assert_int_eq(writer_flush(&w), 0);
    writer_close(&w);
    ck_assert(fd_is_open(slot)); /* the program's descriptor stays */
    ck_assert_int_eq(write(slot, "prog\n", 5), 5);

    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "one\ntwo\n");
    free(text);
    text = ut_slurp(other, NULL);
    ck_assert_str_eq(text, "prog\n");
    free(text);
    close(slot);
    close(theirs);
}
END_TEST

START_TEST(guard_survives_close)
{
    char path[512], buf[64];
    struct writer w;
    writer_init(&w, open_tmp("log", path, sizeof path), buf, sizeof buf);
    writer_guard_descriptor(&w, path);
    writer_puts(&w, "a\n");
    ck_assert_int_eq(writer_flush(&w), 0);
    close(w.fd); /* a program closing every descriptor */
    writer_puts(&w, "b\n");
    ck_assert_int_eq(writer_flush(&w), 0);
    writer_close(&w);
    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "a\nb\n");
    free(text);
}
END_TEST

/* Pieces that fit the buffer are never split across two write(2) calls,
 * so a log cut short ends with whole pieces; longer ones are cut. */
START_TEST(pieces_not_split)
{
    char path[512], buf[16];
    static size_t piece_end[20000];
    static char ref[200000];
    int n_pieces = 0;
    size_t len = 0;
    uint64_t seed = 11;
    struct writer w;
    int fd = open_tmp("log", path, sizeof path);
    writer_init(&w, fd, buf, sizeof buf);
    inject_fd = fd;
    inject_mode = OBSERVE;
    for (int i = 0; i < 10000; i++) {
        size_t n = 1 + ut_rand(&seed) % sizeof buf; /* 1..cap: all fit */
        for (size_t k = 0; k < n; k++)
            ref[len + k] = (char)('a' + (i + (int)k) % 26);
        writer_put(&w, ref + len, n);
        len += n;
        piece_end[n_pieces++] = len;
    }
    ck_assert_int_eq(writer_flush(&w), 0);
    inject_mode = PASS;
    ck_assert_uint_eq(observed_total, len);
    /* Every write ended where some piece ended. */
    int p = 0;
    for (int b = 0; b < n_boundaries; b++) {
        while (p < n_pieces && piece_end[p] < boundaries[b])
            p++;
        UT_CHECK(p < n_pieces && piece_end[p] == boundaries[b],
                 "write %d ends at %zu, inside a piece", b, boundaries[b]);
    }
    size_t got;
    char *text = ut_slurp(path, &got);
    ck_assert_uint_eq(got, len);
    ck_assert(memcmp(text, ref, len) == 0);
    free(text);
    writer_close(&w);
}
END_TEST

Suite *writer_suite(void)
{
    Suite *s = suite_create("writer");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, writer_fixture_teardown);
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, small_buffer_file);
    tcase_add_test(tc, drain_instead_of_write);
    tcase_add_test(tc, random_puts_random_caps);
    tcase_add_test(tc, pipe_small_buffer);
    tcase_add_test(tc, dev_full_fails_once_then_noop);
    tcase_add_test(tc, dev_full_explicit_flush);
    tcase_add_test(tc, injected_eintr_and_short_writes);
    tcase_add_test(tc, no_progress_gives_error);
    tcase_add_test(tc, signals_interrupt_pipe_writes);
    tcase_add_test(tc, nonblocking_full_pipe);
    tcase_add_test(tc, write_all_errors);
    tcase_add_test(tc, no_descriptor_is_noop);
    tcase_add_test(tc, discard_forgets_buffer);
    tcase_add_test(tc, unbuffered_flushes_at_newline);
    tcase_add_test(tc, guard_survives_dup2_over_descriptor);
    tcase_add_test(tc, guard_survives_close);
    tcase_add_test(tc, pieces_not_split);
    suite_add_tcase(s, tc);
    return s;
}
