/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefault.c - see prefault.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "base/prefault.h"

#include <stdint.h>
#include <sys/mman.h>

void prefault_write(void *p, size_t n)
{
    enum { PAGE = 4096 };
    uintptr_t a = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(PAGE - 1);
    if (n < PREFAULT_MIN || b <= a)
        return;
#ifdef MADV_POPULATE_WRITE
    madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
}
