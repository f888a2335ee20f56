/* SPDX-License-Identifier: GPL-3.0-or-later */
/* logfile.c - see logfile.h. */
#define _GNU_SOURCE
#include "log/logfile.h"
#include "base/sysfd.h"
#include "../include/mtrace-format.h"
#include "base/fmt.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FALLBACKS 100

int logfile_expand(const char *pattern, pid_t pid, char *out, size_t size)
{
    char pid_text[24];
    *fmt_dec(pid_text, (uint64_t)pid) = '\0';
    const char *values[] = { pid_text };
    return fmt_expand(pattern, "p", values, out, size);
}

/* Reads up to SIZE-1 bytes of PATH into BUF; returns the length or -1. */
static ssize_t read_small_file(const char *path, char *buf, size_t size)
{
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    sys_close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* The start time of this process in clock ticks since boot: field 22 of
 * /proc/self/stat, counted after the ")" that ends the command name. */
static uint64_t process_start_time(void)
{
    char stat[1024];
    if (read_small_file("/proc/self/stat", stat, sizeof stat) <= 0)
        return 0;
    const char *p = strrchr(stat, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

const char *logfile_process_tag(void)
{
    /* Computed anew each time: a fork child is another process. */
    static char tag[96];
    char boot[64] = "";
    read_small_file("/proc/sys/kernel/random/boot_id", boot, 9);
    char *p = fmt_dec(tag, (uint64_t)getpid());
    *p++ = ':';
    p = fmt_dec(p, process_start_time());
    *p++ = ':';
    p = stpcpy(p, boot[0] ? boot : "0");
    return tag;
}

/* A compressed log (zstdlog.h) starts with its header lines in a
 * skippable frame: the text inside it, else HEAD itself.  HEAD holds N
 * bytes and a NUL after them. */
static const char *skip_header_frame(char *head, size_t n)
{
    const unsigned char *h = (const unsigned char *)head;
    uint32_t magic = 0, len = 0;
    if (n < 8)
        return head;
    for (int i = 3; i >= 0; i--) {
        magic = magic << 8 | h[i];
        len = len << 8 | h[4 + i];
    }
    if (magic != MTF_ZSTD_HEADER_MAGIC)
        return head;
    if (len < n - 8)
        head[8 + len] = '\0';
    return head + 8;
}

/* Does the log already in FD come from this very process (an image before
 * exec(), which keeps the pid and the start time)?  A dead process that
 * had the same pid has another start time or another boot. */
static int header_names_this_process(int fd)
{
    char head[512], want[120];
    ssize_t n = pread(fd, head, sizeof head - 1, 0);
    if (n <= 0)
        return 0;
    head[n] = '\0';
    const char *text = skip_header_frame(head, (size_t)n);
    const char *v = strstr(text, "\n#v ");
    if (v == NULL)
        return 0;
    const char *eol = strchr(v + 1, '\n');
    stpcpy(stpcpy(want, " proc="), logfile_process_tag());
    const char *hit = strstr(v, want);
    size_t wl = strlen(want);
    return hit && (eol == NULL || hit < eol) &&
           (hit[wl] == ' ' || hit[wl] == '\n');
}

/* open(2), retried when a signal interrupts it (opening a FIFO blocks
 * until a reader comes). */
static int open_retrying(const char *name, int flags)
{
    int fd, cancel_state;
    /* open(2) is a cancellation point; we may hold the log lock here. */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    do
        fd = sys_open(name, flags, 0666);
    while (fd < 0 && errno == EINTR);
    pthread_setcancelstate(cancel_state, NULL);
    return fd;
}

/* Empties the claimed file FD (NAME), keeping what a truncation costs off
 * the program's exit.  ext4 (its default auto_da_alloc) marks a file cut to
 * size 0, then writes every dirty page of it out when a descriptor of it
 * is closed: the program's last close of the log took 31-41 ms for a 62 MB
 * log (bench/RESULTS.md, 2026-11-25).  A new, empty file is left as it is;
 * a cut one is opened and closed once more at once, which spends the mark
 * while the file is still empty.  Devices and pipes cannot be truncated;
 * that is fine.  0, or -1 with errno. */
static int empty_file(int fd, const char *name)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
        return 0;
    if (ftruncate(fd, 0) != 0)
        return errno == EINVAL ? 0 : -1;
    int again = open_retrying(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (again >= 0)
        sys_close(again);
    return 0;
}

/* Opens and claims NAME, or returns -1 (errno EWOULDBLOCK when it belongs
 * to another live process or to this process's earlier image). */
static int claim(const char *name)
{
    /* Read access is for the header check of a regular file only: a FIFO
     * opened for reading too would never see its reader go (and block
     * once full), and a device needs no check. */
    struct stat st;
    int exists = stat(name, &st) == 0;
    int regular = !exists || S_ISREG(st.st_mode);
    int fd = regular ? open_retrying(name, O_RDWR | O_CREAT | O_CLOEXEC) : -1;
    if (fd < 0 && exists && S_ISFIFO(st.st_mode)) {
        /* Opening a FIFO for writing waits for a reader, maybe forever:
         * without one, ENXIO, and the program goes on without a log. */
        fd = open_retrying(name, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0)
            sys_fcntl(fd, F_SETFL, sys_fcntl(fd, F_GETFL, 0) & ~O_NONBLOCK);
    } else if (fd < 0) {
        fd = open_retrying(name, O_WRONLY | O_CREAT | O_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        sys_close(fd);
        errno = err;
        /* A file system without flock cannot tell: take it, as glibc does. */
        if (err == ENOLCK || err == EINVAL || err == EOPNOTSUPP)
            return open_retrying(name,
                                 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
        return -1;
    }
    if (header_names_this_process(fd)) {
        sys_close(fd);
        errno = EWOULDBLOCK;
        return -1;
    }
    if (empty_file(fd, name) != 0) {
        int err = errno;
        sys_close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* BASE.PID or BASE.PID.N; a compressed log's name keeps its suffix last
 * (trace.log.PID.zst), for the tools that go by it. */
static int fallback_name(const char *base, pid_t pid, int n, char *out,
                         size_t size)
{
    char tail[48], *t = tail;
    size_t bl = strlen(base), sl = sizeof MTF_ZSTD_SUFFIX - 1;
    const char *suffix = "";
    if (bl > sl && strcmp(base + bl - sl, MTF_ZSTD_SUFFIX) == 0) {
        suffix = MTF_ZSTD_SUFFIX;
        bl -= sl;
    }
    *t++ = '.';
    t = fmt_dec(t, (uint64_t)pid);
    if (n > 0) {
        *t++ = '.';
        t = fmt_dec(t, (uint64_t)n);
    }
    t = stpcpy(t, suffix);
    size_t tl = (size_t)(t - tail);
    if (bl + tl >= size)
        return -1;
    memcpy(out, base, bl);
    memcpy(out + bl, tail, tl + 1);
    return 0;
}

/* PATTERN expanded and made absolute (the program may chdir() later, and
 * the log is reopened by name if the program closes its descriptor). */
static int base_name(const char *pattern, pid_t pid, char *base, size_t size)
{
    size_t dir_len = 0;
    if (pattern[0] != '/') {
        if (getcwd(base, size) == NULL)
            return -1;
        dir_len = strlen(base);
        if (dir_len + 1 >= size)
            return -1;
        base[dir_len++] = '/';
    }
    return logfile_expand(pattern, pid, base + dir_len, size - dir_len);
}

int logfile_open(const char *pattern, pid_t pid, int forked, char *chosen,
                 size_t chosen_size)
{
    char base[4096];
    if (base_name(pattern, pid, base, sizeof base) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* "%p" makes the name this process's own: a fork child takes it too. */
    if (!forked || strstr(pattern, "%p")) {
        int fd = claim(base);
        if (fd >= 0 || errno != EWOULDBLOCK) {
            if (fd >= 0 && strlen(base) < chosen_size)
                strcpy(chosen, base);
            return fd;
        }
    }
    for (int n = 0; n < MAX_FALLBACKS; n++) {
        if (fallback_name(base, pid, n, chosen, chosen_size) != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = claim(chosen);
        if (fd >= 0 || errno != EWOULDBLOCK)
            return fd;
    }
    errno = EEXIST;
    return -1;
}
