/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rss.c - see rss.h.  statm's second and third fields are the resident
 * pages and those of them that are file-backed or shared: anonymous
 * memory is the difference (the kernel's RssAnon; RssFile + RssShmem the
 * rest). */
#include "log/rss.h"
#include "../include/mtrace-format.h"
#include "base/fmt.h"
#include "base/sysfd.h"
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

/* The Nth (0-based) decimal field of TEXT, or -1. */
static int64_t field(const char *text, size_t n, int which)
{
    size_t i = 0;
    for (int k = 0; k < which; k++) {
        while (i < n && text[i] != ' ')
            i++;
        while (i < n && text[i] == ' ')
            i++;
    }
    if (i >= n || text[i] < '0' || text[i] > '9')
        return -1;
    int64_t v = 0;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; i++)
        v = v * 10 + (text[i] - '0');
    return v;
}

static char *put_key(char *p, const char *key, uint64_t v)
{
    *p++ = ' ';
    size_t k = strlen(key);
    memcpy(p, key, k);
    p += k;
    *p++ = '=';
    return fmt_dec(p, v);
}

size_t rss_fields(char *out)
{
    char text[128];
    int fd = sys_open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long n = syscall(SYS_read, fd, text, sizeof text);
    sys_close(fd);
    if (n <= 0)
        return 0;
    int64_t resident = field(text, (size_t)n, 1);
    int64_t shared = field(text, (size_t)n, 2);
    uint64_t page = getauxval(AT_PAGESZ);
    if (resident < 0 || shared < 0 || page == 0)
        return 0;
    if (shared > resident)
        shared = resident;
    char *p = put_key(out, MTF_KEY_RSS_ANON,
                      (uint64_t)(resident - shared) * page);
    p = put_key(p, MTF_KEY_RSS_FILE, (uint64_t)shared * page);
    return (size_t)(p - out);
}
