/* SPDX-License-Identifier: GPL-3.0-or-later
 * util.h - helpers shared by the integration test programs: output that
 * never touches the allocator, and a barrier that keeps the compiler from
 * optimising allocations away. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Make P visible to "the outside world": GCC may delete a malloc whose
 * result is never used, which would change the test's known leaks. */
static inline void escape(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* escape(P), then return it: free(used(malloc(n))) is really allocated. */
static inline void *used(void *p)
{
    escape(p);
    return p;
}

/* Return P through an opaque barrier: the compiler loses track of where it
 * came from (no -Wuse-after-free on a failed realloc's old block). */
static inline void *hide(void *p)
{
    __asm__ volatile("" : "+r"(p));
    return p;
}

/* A value the compiler cannot see (no -Walloc-size-larger-than). */
static inline size_t opaque_size(size_t n)
{
    __asm__ volatile("" : "+r"(n));
    return n;
}

/* printf to fd 1 without stdio's buffer (which would be a heap block). */
static inline void say(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline void say(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 1)
        n = sizeof buf - 1;
    for (int off = 0; off < n;) {
        ssize_t w = write(1, buf + off, n - off);
        if (w <= 0)
            return;
        off += w;
    }
}

#endif
