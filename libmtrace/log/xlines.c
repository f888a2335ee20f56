/* SPDX-License-Identifier: GPL-3.0-or-later */
/* xlines.c - see xlines.h. */
#include "log/xlines.h"
#include "../include/mtrace-format.h"
#include "base/fmt.h"
#include <string.h>

static char *put(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

size_t xlines_block(char *out, const char *kind, uintptr_t ptr, uint64_t size,
                    uint32_t sid, uint32_t pool)
{
    char *p = put(out, MTF_REC_XBLOCK " ");
    p = put(p, kind);
    *p++ = ' ';
    p = fmt_ptr(p, ptr);
    *p++ = ' ';
    p = fmt_size(p, size);
    *p++ = ' ';
    *p++ = MTF_STACK_FIELD_PREFIX;
    p = fmt_dec(p, sid);
    if (pool) {
        *p++ = ' ';
        p = fmt_dec(p, pool);
    }
    *p++ = '\n';
    return (size_t)(p - out);
}

size_t xlines_end(char *out, const char *kind, uintptr_t ptr)
{
    char *p = put(out, MTF_REC_XBLOCK_END " ");
    p = put(p, kind);
    *p++ = ' ';
    p = fmt_ptr(p, ptr);
    *p++ = '\n';
    return (size_t)(p - out);
}

size_t xlines_pool(char *out, const char *what, uint32_t pool,
                   const char *name)
{
    char *p = put(out, MTF_REC_POOL " ");
    p = put(p, what);
    *p++ = ' ';
    p = fmt_dec(p, pool);
    if (strcmp(what, MTF_POOL_NEW) == 0) {
        *p++ = ' ';
        if (name == NULL || *name == '\0')
            *p++ = '-';
        for (size_t i = 0; name && name[i] && i < XLINE_NAME_MAX; i++)
            *p++ = (unsigned char)name[i] < ' ' || name[i] == 0x7f ? '?'
                                                                   : name[i];
    }
    *p++ = '\n';
    return (size_t)(p - out);
}
