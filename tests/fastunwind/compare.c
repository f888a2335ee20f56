/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compare.c - see compare.h. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "compare.h"
#include "unwind/fastunwind.h"
#include <dlfcn.h>
#include <libunwind.h>
#include <stdio.h>
#include <string.h>

typedef int (*unwinder)(void **, int);
static unwinder volatile unwinders[2] = { fastunwind_backtrace, unw_backtrace };

/* The memoizing walk behind the same call: a tail call, so it sees the
 * same return address as the plain one. */
static struct fastunwind_memo *memo;

static int memo_backtrace(void **frames, int max)
{
    return fastunwind_backtrace_memo(frames, max, memo);
}

void capture_with_memo(struct fastunwind_memo *m)
{
    memo = m;
    unwinders[0] = m ? memo_backtrace : fastunwind_backtrace;
}
static volatile int n_unwinders = 2;

/* One call instruction for both unwinders: the compiler cannot unroll a
 * loop whose counter an empty asm may change. */
FU_NOIPA void capture_max(struct capture *c, int max)
{
    for (int i = 0; i < n_unwinders; i++) {
        __asm__ volatile("" : "+r"(i));
        c->n[i] = unwinders[i](c->frames[i], max);
    }
}


FU_NOIPA void capture_here(struct capture *c)
{
    capture_max(c, memo ? MEMO_TEST_DEPTH : MAXF);
    __asm__ volatile("" ::: "memory");
}

FU_NOIPA void capture_callback(void *arg)
{
    capture_here(arg);
    __asm__ volatile("" ::: "memory");
}

static const char *name_of(void *addr, char *buf, size_t len)
{
    Dl_info info;
    if (dladdr(addr, &info) && info.dli_sname)
        snprintf(buf, len, "%s+%#lx", info.dli_sname,
                 (unsigned long)((char *)addr - (char *)info.dli_saddr));
    else if (dladdr(addr, &info) && info.dli_fname)
        snprintf(buf, len, "%s+%#lx", info.dli_fname,
                 (unsigned long)((char *)addr - (char *)info.dli_fbase));
    else
        snprintf(buf, len, "?");
    return buf;
}

int capture_same(const struct capture *c, char *msg, size_t len)
{
    if (c->n[0] == c->n[1] && memcmp(c->frames[0], c->frames[1],
                                     (size_t)c->n[0] * sizeof(void *)) == 0)
        return 1;
    capture_describe(c, msg, len);
    return 0;
}

void capture_describe(const struct capture *c, char *msg, size_t len)
{
    size_t used = (size_t)snprintf(
        msg, len, "fastunwind %d frames, libunwind %d:\n", c->n[0], c->n[1]);
    int most = c->n[0] > c->n[1] ? c->n[0] : c->n[1];
    for (int i = 0; i < most && used < len; i++) {
        char a[128] = "-", b[128] = "-";
        if (i < c->n[0])
            name_of(c->frames[0][i], a, sizeof a);
        if (i < c->n[1])
            name_of(c->frames[1][i], b, sizeof b);
        int differ = i >= c->n[0] || i >= c->n[1] ||
                     c->frames[0][i] != c->frames[1][i];
        used += (size_t)snprintf(msg + used, len - used, "%c %2d %-40s %s\n",
                                 differ ? '*' : ' ', i, a, b);
    }
}
