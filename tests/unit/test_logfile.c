/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_logfile.c - logfile.h: %p expansion, and which name logfile_open
 * takes when the plain path is free, locked by another open file or
 * process, or holds the log of this very process (its header names our
 * pid). */
#define _GNU_SOURCE
#include "unit.h"
#include "log/logfile.h"
#include "mtrace-format.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];
static const pid_t PID = 4242; /* the pid we open logs for */

static void setup(void)
{
    ut_mkdtemp(dir, sizeof dir);
}

static void teardown(void)
{
    ut_rmtree(dir);
}

static void path_in_dir(char *out, size_t size, const char *fmt, long a, long b)
{
    int n = snprintf(out, size, "%s/", dir);
    snprintf(out + n, size - (size_t)n, fmt, a, b);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* FD is a locked, close-on-exec, empty log at PATH. */
static void assert_claimed(int fd, const char *path)
{
    struct stat a, b;
    ck_assert_int_ge(fd, 0);
    ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    ck_assert_int_eq(fstat(fd, &a), 0);
    ck_assert_int_eq(stat(path, &b), 0);
    ck_assert(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
    ck_assert_int_eq(a.st_size, 0);
    int other = open(path, O_RDONLY);
    ck_assert_int_ge(other, 0);
    ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), -1);
    ck_assert_int_eq(errno, EWOULDBLOCK);
    close(other);
}

/* Holds PATH's lock through a second open file description, as another
 * tracer would. */
static int hold_lock(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    return fd;
}

/* A header naming this process: its proc tag (pid, start time, boot). */
static void header_for(char *out, size_t size, long pid)
{
    snprintf(out, size, "= Start\n#v 1 pid=%ld proc=%s ppid=1\n+ 0x1000 0x10\n",
             pid, logfile_process_tag());
}

START_TEST(expand)
{
    char out[64];
    ck_assert_int_eq(logfile_expand("log.%p", 123, out, sizeof out), 0);
    ck_assert_str_eq(out, "log.123");
    ck_assert_int_eq(logfile_expand("%p/%p", 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "7/7");
    ck_assert_int_eq(logfile_expand("plain", 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "plain");
    ck_assert_int_eq(logfile_expand("a%q%", 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "a%q%");
    ck_assert_int_eq(logfile_expand("", 7, out, sizeof out), 0);
    ck_assert_str_eq(out, "");
    char want[64];
    snprintf(want, sizeof want, "x%d", INT_MAX);
    ck_assert_int_eq(logfile_expand("x%p", INT_MAX, out, sizeof out), 0);
    ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(expand_size_limit)
{
    char out[16];
    /* "log.12345" is 9 bytes: it needs 10 with the NUL. */
    memset(out, 'X', sizeof out);
    ck_assert_int_eq(logfile_expand("log.%p", 12345, out, 10), 0);
    ck_assert_str_eq(out, "log.12345");
    ck_assert_int_eq(logfile_expand("log.%p", 12345, out, 9), -1);
    ck_assert_int_eq(logfile_expand("abcdefghij", 1, out, 10), -1);
    ck_assert_int_eq(logfile_expand("abcdefghi", 1, out, 10), 0);
    ck_assert_str_eq(out, "abcdefghi");
}
END_TEST

START_TEST(fresh_path)
{
    char pattern[512], want[512], chosen[4096];
    path_in_dir(pattern, sizeof pattern, "log.%%p", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld", PID, 0);
    int fd = logfile_open(pattern, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    close(fd);
}
END_TEST

START_TEST(existing_file_truncated)
{
    char path[512], chosen[4096], text[256];
    path_in_dir(path, sizeof path, "log", 0, 0);
    /* someone else's old log */
    snprintf(text, sizeof text, "= Start\n#v 1 pid=%ld proc=%ld:77:0 ppid=1\n",
             (long)PID + 1, (long)PID + 1);
    ut_write_file(path, text);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, path);
    ck_assert_str_eq(chosen, path);
    close(fd);
    /* A tag that merely starts with ours is someone else's too. */
    snprintf(text, sizeof text, "= Start\n#v 1 proc=%s1 ppid=1\n",
             logfile_process_tag());
    ut_write_file(path, text);
    fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, path);
    close(fd);
}
END_TEST

/* The plain path locked: PATH.PID, and the locked file left alone. */
START_TEST(locked_in_process)
{
    char path[512], want[512], chosen[4096];
    path_in_dir(path, sizeof path, "log", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld", PID, 0);
    ut_write_file(path, "another process's log\n");
    int holder = hold_lock(path);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    char *text = ut_slurp(path, NULL);
    ck_assert_str_eq(text, "another process's log\n");
    free(text);
    close(fd);
    close(holder);
}
END_TEST

START_TEST(locked_by_other_process)
{
    char path[512], want[512], chosen[4096];
    int ready[2], release[2];
    path_in_dir(path, sizeof path, "log", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld", PID, 0);
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(release), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) { /* holds the lock until the parent says so */
        int fd = open(path, O_RDWR | O_CREAT, 0644);
        char c = fd >= 0 && flock(fd, LOCK_EX) == 0 ? 'y' : 'n';
        close(release[1]);
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        while (read(release[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(release[0]);
    char c = 0;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert_int_eq(c, 'y');
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    close(release[1]);
    int status;
    waitpid(child, &status, 0);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    close(fd);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

/* The plain path holds our own pid's log (an image before exec): it is
 * kept, and PATH.PID is used; if that is ours as well, PATH.PID.1. */
START_TEST(own_pid_header)
{
    char path[512], want[512], want1[512], chosen[4096], text[256];
    path_in_dir(path, sizeof path, "log", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld", PID, 0);
    path_in_dir(want1, sizeof want1, "log.%ld.%ld", PID, 1);
    header_for(text, sizeof text, PID);
    ut_write_file(path, text);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    char *kept = ut_slurp(path, NULL);
    ck_assert_str_eq(kept, text);
    free(kept);
    close(fd);

    ut_write_file(want, text); /* PATH.PID is ours too */
    fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want1);
    ck_assert_str_eq(chosen, want1);
    close(fd);
}
END_TEST

START_TEST(own_pid_header_then_locked)
{
    char path[512], want[512], want1[512], chosen[4096], text[256];
    path_in_dir(path, sizeof path, "log", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld", PID, 0);
    path_in_dir(want1, sizeof want1, "log.%ld.%ld", PID, 1);
    header_for(text, sizeof text, PID);
    ut_write_file(path, text);
    int holder = hold_lock(want);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want1);
    ck_assert_str_eq(chosen, want1);
    close(fd);
    close(holder);
}
END_TEST

/* Our proc tag as the last field of the "#v" line counts too. */
START_TEST(own_pid_last_on_line)
{
    char path[512], want[512], chosen[4096], text[256];
    path_in_dir(path, sizeof path, "log", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld", PID, 0);
    snprintf(text, sizeof text, "= Start\n#v 1 ppid=1 proc=%s\n",
             logfile_process_tag());
    ut_write_file(path, text);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    close(fd);
}
END_TEST

/* A dead process that had our pid (another start time) left the file:
 * it is stale, and reused. */
START_TEST(same_pid_other_process)
{
    char path[512], chosen[4096], text[256], tag[128];
    path_in_dir(path, sizeof path, "log", 0, 0);
    snprintf(tag, sizeof tag, "%s", logfile_process_tag());
    char *start = strchr(tag, ':') + 1;
    start[0] = start[0] == '9' ? '8' : '9'; /* another start time */
    snprintf(text, sizeof text, "= Start\n#v 1 pid=%ld proc=%s ppid=1\n",
             (long)PID, tag);
    ut_write_file(path, text);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, path);
    ck_assert_str_eq(chosen, path);
    close(fd);
}
END_TEST

/* "proc=" outside the "#v" line does not make the file ours. */
START_TEST(pid_outside_header_line)
{
    char path[512], chosen[4096], text[256];
    path_in_dir(path, sizeof path, "log", 0, 0);
    snprintf(text, sizeof text, "= Start\n#v 1 ppid=1\n# proc=%s \n",
             logfile_process_tag());
    ut_write_file(path, text);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, path);
    ck_assert_str_eq(chosen, path);
    close(fd);
}
END_TEST

/* A compressed log (zstdlog.c) of our own: its header lines are in the
 * skippable frame that starts the file, and found there; the fallback
 * names keep ".zst" last (log.zst -> log.PID.zst, log.PID.1.zst). */
START_TEST(own_pid_compressed_header)
{
    char path[512], want[512], want1[512], chosen[4096], text[256];
    unsigned char frame[300];
    path_in_dir(path, sizeof path, "log.zst", 0, 0);
    path_in_dir(want, sizeof want, "log.%ld.zst", PID, 0);
    path_in_dir(want1, sizeof want1, "log.%ld.%ld.zst", PID, 1);
    header_for(text, sizeof text, PID);
    size_t n = strlen(text);
    uint32_t magic = MTF_ZSTD_HEADER_MAGIC;
    for (int i = 0; i < 4; i++) {
        frame[i] = (unsigned char)(magic >> (8 * i));
        frame[4 + i] = (unsigned char)(n >> (8 * i)); /* has NUL bytes */
    }
    memcpy(frame + 8, text, n);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_eq(write(out, frame, 8 + n), (ssize_t)(8 + n));
    close(out);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    int holder = fd;
    fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, want1);
    ck_assert_str_eq(chosen, want1);
    close(fd);
    close(holder);
}
END_TEST

/* The same header outside a frame of that magic is not looked at. */
START_TEST(other_frame_not_header)
{
    char path[512], chosen[4096], text[256];
    unsigned char frame[300] = { 0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0 };
    path_in_dir(path, sizeof path, "log.zst", 0, 0);
    header_for(text, sizeof text, PID);
    memcpy(frame + 8, text, strlen(text));
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_eq(write(out, frame, 8 + strlen(text)),
                     (ssize_t)(8 + strlen(text)));
    close(out);
    int fd = logfile_open(path, PID, 0, chosen, sizeof chosen);
    assert_claimed(fd, path);
    close(fd);
}
END_TEST

/* A fork child never takes the parent's plain name... */
START_TEST(forked_never_plain)
{
    char pattern[512], want[512], want1[512], chosen[4096];
    path_in_dir(pattern, sizeof pattern, "f", 0, 0);
    path_in_dir(want, sizeof want, "f.%ld", PID, 0);
    int fd = logfile_open(pattern, PID, 1, chosen, sizeof chosen);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    ck_assert(!exists(pattern)); /* never even created */
    int fd1 = logfile_open(pattern, PID, 1, chosen, sizeof chosen);
    path_in_dir(want1, sizeof want1, "f.%ld.%ld", PID, 1);
    assert_claimed(fd1, want1); /* the first is still held */
    ck_assert_str_eq(chosen, want1);
    close(fd);
    close(fd1);
}
END_TEST

/* ...unless "%p" makes it the child's own: "f.%p" -> f.PID, no suffix. */
START_TEST(forked_percent_p_is_own)
{
    char pattern[512], plain[512], chosen[4096];
    path_in_dir(pattern, sizeof pattern, "f.%%p", 0, 0);
    path_in_dir(plain, sizeof plain, "f.%ld", PID, 0);
    int fd = logfile_open(pattern, PID, 1, chosen, sizeof chosen);
    assert_claimed(fd, plain);
    ck_assert_str_eq(chosen, plain);
    close(fd);
}
END_TEST

START_TEST(relative_pattern_made_absolute)
{
    char cwd[4096], want[4200], chosen[4096];
    int back = open(".", O_RDONLY | O_DIRECTORY);
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/rel.%d", cwd, (int)PID);
    int fd = logfile_open("rel.%p", PID, 0, chosen, sizeof chosen);
    ck_assert_int_eq(fchdir(back), 0);
    assert_claimed(fd, want);
    ck_assert_str_eq(chosen, want);
    close(fd);
    close(back);
}
END_TEST

/* Runs in a child so that root can drop privileges for good. */
static int open_in_readonly_dir(const char *ro)
{
    char pattern[600], chosen[4096];
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        return 10;
    snprintf(pattern, sizeof pattern, "%s/log", ro);
    errno = 0;
    int fd = logfile_open(pattern, PID, 0, chosen, sizeof chosen);
    if (fd != -1)
        return 11;
    return errno == EACCES ? 0 : 12;
}

START_TEST(unwritable_directory)
{
    char ro[512], missing[512], chosen[4096];
    path_in_dir(ro, sizeof ro, "ro", 0, 0);
    ck_assert_int_eq(mkdir(ro, 0555), 0);
    ck_assert_int_eq(chmod(dir, 0755), 0); /* searchable by "nobody" */
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(open_in_readonly_dir(ro));
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    if (WEXITSTATUS(status) == 10) /* e.g. a user namespace without uid 65534 */
        fprintf(
            stderr,
            "logfile: cannot drop root; read-only directory case skipped\n");
    else
        ck_assert_msg(WEXITSTATUS(status) == 0, "child: %d",
                      WEXITSTATUS(status));

    path_in_dir(missing, sizeof missing, "no/such/dir/log", 0, 0);
    errno = 0;
    ck_assert_int_eq(logfile_open(missing, PID, 0, chosen, sizeof chosen), -1);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

Suite *logfile_suite(void)
{
    Suite *s = suite_create("logfile");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, expand);
    tcase_add_test(tc, expand_size_limit);
    tcase_add_test(tc, fresh_path);
    tcase_add_test(tc, existing_file_truncated);
    tcase_add_test(tc, locked_in_process);
    tcase_add_test(tc, locked_by_other_process);
    tcase_add_test(tc, own_pid_header);
    tcase_add_test(tc, own_pid_header_then_locked);
    tcase_add_test(tc, own_pid_last_on_line);
    tcase_add_test(tc, same_pid_other_process);
    tcase_add_test(tc, pid_outside_header_line);
    tcase_add_test(tc, own_pid_compressed_header);
    tcase_add_test(tc, other_frame_not_header);
    tcase_add_test(tc, forked_never_plain);
    tcase_add_test(tc, forked_percent_p_is_own);
    tcase_add_test(tc, relative_pattern_made_absolute);
    tcase_add_test(tc, unwritable_directory);
    suite_add_tcase(s, tc);
    return s;
}
