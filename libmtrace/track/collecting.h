/* SPDX-License-Identifier: GPL-3.0-or-later */
/* collecting.h - whether allocations are being collected: the one flag
 * every wrapper reads first.  Set by tracer.c at the start of collection;
 * cleared by muntrace() and by the log when writing it fails.
 */
#ifndef MT_COLLECTING_H
#define MT_COLLECTING_H
#include <stdatomic.h>

extern atomic_int mt_collecting;

/* True while allocations are being collected (hot path: one load). */
static inline int tracer_active(void)
{
    return atomic_load_explicit(&mt_collecting, memory_order_relaxed);
}

static inline void collection_stop(void)
{
    atomic_store(&mt_collecting, 0);
}

#endif
