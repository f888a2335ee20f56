/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fastrules.h - fastunwind's rules (how to step a frame) and the global
 * cache of them that the walk reads inline.  fastrules.c works a rule out
 * from the unwind information and fills the cache; fastunwind.c walks
 * with them.  Private to those two files.  GPL-3.0-or-later. */
#ifndef MT_FASTRULES_H
#define MT_FASTRULES_H
#include <stdbool.h>
#include <stdint.h>

/* ---- Rules ---------------------------------------------------------- */

enum rule_kind {
    RULE_NONE,     /* never cached: the empty cache word */
    RULE_STANDARD, /* CFA = base + offset, return address at CFA-8 */
    RULE_SIGNAL,   /* __restore_rt: registers in the ucontext at RSP */
    RULE_STOP,     /* outermost frame, or nothing we can follow */
    RULE_DRAP,     /* realigned stack: CFA = *(RBP-off), RBP saved at RBP */
};

struct rule {
    enum rule_kind kind;
    bool cfa_rbp; /* CFA based on RBP rather than RSP */
    int64_t cfa_off;
    int64_t rbp_off; /* caller's RBP saved at CFA + this; 0: unchanged */
};

/* ---- The rule cache --------------------------------------------------
 * One 64-bit word per entry, so that a reader never sees half of what a
 * concurrent writer stores.  Two ways a set: the set is picked by the
 * address's low SET_BITS bits mixed with the next ones, the tag is the
 * address above SET_BITS, from bit TAG_SHIFT (the two give the address
 * back).  Direct-mapped by the low bits, as it was, two hot return
 * addresses of different modules met in one slot in about a third of the
 * runs of bench/wl (module bases are random in bits 12 and up), evicted
 * each other on every walk, and every walk through them was slow and not
 * memoized: 2-3x the time of the other runs.  The packed rule is laid
 * out for the fewest instructions between loading the word and loading the
 * return address: the CFA offset in the lowest bits, then the base
 * register, the saved-RBP slot (k: at CFA-8k; 0: RBP unchanged), the kind. */

#define SET_BITS 13
#define WAYS 2
#define CACHE_SIZE (WAYS << SET_BITS)
#define CFA_OFF_BITS 18
#define CFA_OFF_MASK ((1ull << CFA_OFF_BITS) - 1)
#define CFA_RBP_BIT (1ull << CFA_OFF_BITS)
#define RBP_SHIFT (CFA_OFF_BITS + 1)
#define KIND_SHIFT (RBP_SHIFT + 8)
#define KIND_MASK 7
#define TAG_SHIFT (KIND_SHIFT + 3)
#define TAG_MASK (~((1ull << TAG_SHIFT) - 1))
#define CACHEABLE_LIMIT (1ull << (SET_BITS + 64 - TAG_SHIFT))

/* The cache (fastrules.c); read inline by the walk. */
extern uint64_t fastunwind_rule_cache[CACHE_SIZE];

/* The set's first way; the second follows it (one cache line). */
static inline uint64_t *cache_set(uint64_t pc)
{
    return &fastunwind_rule_cache[((pc ^ (pc >> SET_BITS)) & ((1u << SET_BITS) - 1)) *
                       WAYS];
}

static inline uint64_t cache_tag(uint64_t pc)
{
    return pc >> SET_BITS << TAG_SHIFT;
}


static inline void rule_unpack(uint64_t w, struct rule *r)
{
    r->kind = (enum rule_kind)((w >> KIND_SHIFT) & KIND_MASK);
    r->cfa_rbp = (w & CFA_RBP_BIT) != 0;
    r->cfa_off = (int64_t)(w & CFA_OFF_MASK);
    r->rbp_off = -8 * (int64_t)((w >> RBP_SHIFT) & 0xff);
}

/* The cached word for PC, or 0. */
static inline uint64_t cache_word(uint64_t pc)
{
    const uint64_t *set = cache_set(pc);
    uint64_t tag = cache_tag(pc);
    uint64_t w = __atomic_load_n(&set[0], __ATOMIC_RELAXED);
    if ((w & TAG_MASK) == tag)
        return w;
    w = __atomic_load_n(&set[1], __ATOMIC_RELAXED);
    return (w & TAG_MASK) == tag ? w : 0;
}

static inline bool cache_get(uint64_t pc, struct rule *r)
{
    uint64_t w = cache_word(pc);
    if (((w >> KIND_SHIFT) & KIND_MASK) == RULE_NONE)
        return false;
    rule_unpack(w, r);
    return true;
}

/* The rule for the frame at IP: a return address (BACK = 1), whose call
 * instruction ends one byte before it and whose rule is cached under IP
 * itself; or where a signal interrupted (BACK = 0), computed each time. */
void fastunwind_rule_for(uintptr_t ip, uintptr_t back, struct rule *r);
/* Empties the cache (after dlclose). */
void fastunwind_rules_flush(void);

#endif
