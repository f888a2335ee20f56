/* SPDX-License-Identifier: GPL-3.0-or-later */
/* debug.c - see debug.h: the checks of a debug build. */
#include "base/debug.h"

#ifdef MT_DEBUG
#include "base/diag.h"
#include "base/fmt.h"
#include <stdlib.h>

/* The ranks this thread holds, one bit each. */
static __thread unsigned ranks_held __attribute__((tls_model("initial-exec")));

void debug_assert_fail(const char *what, const char *file, int line)
{
    char num[24];
    *fmt_dec(num, (unsigned)line) = '\0';
    diag("assertion failed at ", file, ":", num, ": ", what, NULL);
    abort();
}

void lock_rank_take(enum lock_rank rank, const char *file, int line)
{
    if (rank == LOCK_RANK_NONE)
        return;
    /* No lock of this rank or above may be held already. */
    if (ranks_held >> rank)
        debug_assert_fail("lock order: a lock of this rank or above is held",
                          file, line);
    ranks_held |= 1u << rank;
}

void lock_rank_drop(enum lock_rank rank)
{
    if (rank != LOCK_RANK_NONE)
        ranks_held &= ~(1u << rank);
}

int lock_rank_held(enum lock_rank rank)
{
    return (ranks_held >> rank) & 1;
}
#endif
