/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maps.c - see maps.h. */
#include "symbols/maps.h"
#include "base/sysfd.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define MAPS_BUFFER 8192 /* a line is at most about PATH_MAX + 100 */

static int errno_is_eintr(void)
{
    return errno == EINTR;
}

static uint64_t parse_hex(const char **p)
{
    uint64_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9')
            v = v << 4 | (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v << 4 | (uint64_t)(c - 'a' + 10);
        else
            return v;
    }
}

static const char *skip_field(const char *p)
{
    while (*p && *p != ' ')
        p++;
    while (*p == ' ')
        p++;
    return p;
}

/* "START-END PERMS OFFSET DEV INODE   PATH" (LINE is NUL-terminated). */
static int parse_line(const char *line, struct mapping *m)
{
    const char *p = line;
    m->start = (uintptr_t)parse_hex(&p);
    if (*p++ != '-')
        return -1;
    m->end = (uintptr_t)parse_hex(&p);
    if (*p++ != ' ' || strlen(p) < 5)
        return -1;
    memcpy(m->perms, p, 4);
    m->perms[4] = '\0';
    p = skip_field(p);
    m->offset = parse_hex(&p);
    p = skip_field(skip_field(skip_field(p))); /* offset, dev, inode */
    m->path = p;
    return 0;
}

int maps_each(int (*fn)(const struct mapping *m, void *arg), void *arg)
{
    char buf[MAPS_BUFFER];
    int fd;
    /* The calling thread's view: /proc/self is the main thread's, whose
     * maps read empty once it ended with pthread_exit() while others run
     * on.  /proc/self: kernels older than 3.17. */
    do
        fd = sys_open("/proc/thread-self/maps", O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno_is_eintr());
    if (fd < 0)
        do
            fd = sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
        while (fd < 0 && errno_is_eintr());
    if (fd < 0)
        return -1;
    size_t len = 0;
    int result = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno_is_eintr())
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', len - (size_t)(line - buf))) != NULL) {
            *nl = '\0';
            struct mapping m;
            if (parse_line(line, &m) == 0 && (result = fn(&m, arg)) != 0)
                goto done;
            line = nl + 1;
        }
        len -= (size_t)(line - buf);
        memmove(buf, line, len);
        if (len == sizeof buf - 1)
            len = 0; /* a line longer than the buffer: drop it */
    }
done:
    sys_close(fd);
    return result;
}

struct path_at {
    uintptr_t start;
    char *buf;
    size_t size;
    int found;
};

static int match_start(const struct mapping *m, void *arg)
{
    struct path_at *a = arg;
    if (m->start != a->start)
        return m->start > a->start; /* sorted: past it, stop */
    size_t n = strlen(m->path);
    static const char deleted[] = " (deleted)";
    if (n >= sizeof deleted - 1 &&
        strcmp(m->path + n - (sizeof deleted - 1), deleted) == 0)
        n -= sizeof deleted - 1;
    if (m->path[0] != '/' || n >= a->size)
        return 1;
    memcpy(a->buf, m->path, n);
    a->buf[n] = '\0';
    a->found = 1;
    return 1;
}

int maps_path_at(uintptr_t start, char *buf, size_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    struct path_at a = { start & ~(uintptr_t)(page - 1), buf, size, 0 };
    maps_each(match_start, &a);
    return a.found ? 0 : -1;
}
