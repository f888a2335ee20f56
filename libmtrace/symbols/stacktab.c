/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stacktab.c - see stacktab.h. */
#include "symbols/stacktab.h"
#include "base/arena.h"
#include "symbols/stackhash.h"
#include <stddef.h>
#include <string.h>

static void remember_by_id(struct cmap_entry *e);

static struct cmap stacks = { .lock = SPINLOCK_INIT(LOCK_RANK_STACKS),
                              .on_insert = remember_by_id };

/* id -> stack, two levels so it grows without moving. */
#define BY_ID_CHUNK 4096
#define BY_ID_CHUNKS 4096
static struct stack **by_id[BY_ID_CHUNKS];

static void remember_by_id(struct cmap_entry *e)
{
    uint32_t id = e->seq;
    struct stack ***chunk = &by_id[id / BY_ID_CHUNK];
    if (id / BY_ID_CHUNK >= BY_ID_CHUNKS)
        return;
    if (*chunk == NULL)
        *chunk = arena_alloc(BY_ID_CHUNK * sizeof **chunk);
    if (*chunk)
        (*chunk)[id % BY_ID_CHUNK] = (struct stack *)e;
}

struct stack *stacktab_by_id(uint32_t id)
{
    struct stack **chunk = id / BY_ID_CHUNK < BY_ID_CHUNKS
                               ? by_id[id / BY_ID_CHUNK]
                               : NULL;
    return chunk ? chunk[id % BY_ID_CHUNK] : NULL;
}

struct stack_key {
    void *const *addrs;
    unsigned depth;
    unsigned epoch;
};

/* Exact: a stack is never taken for another whose hash it shares. */
static int stack_eq(const struct cmap_entry *e, const void *key)
{
    const struct stack *s = (const struct stack *)e;
    const struct stack_key *k = key;
    return s->depth == k->depth && s->epoch == k->epoch &&
           memcmp(s->addrs, k->addrs, k->depth * sizeof(uintptr_t)) == 0;
}

#define LINE 64
_Static_assert(offsetof(struct stack, frames) + sizeof(void *) <= LINE,
               "an event's fields of a stack in one cache line");

/* One allocation, starting on a cache line: the stack, its addresses,
 * then its frames. */
static struct stack *stack_alloc(unsigned depth)
{
    size_t size = sizeof(struct stack) + depth * sizeof(uintptr_t) +
                  depth * sizeof(struct frame *);
    char *p = arena_alloc(size + LINE - 16); /* the arena aligns to 16 */
    if (p == NULL)
        return NULL;
    struct stack *s = (struct stack *)(((uintptr_t)p + LINE - 1) &
                                       ~(uintptr_t)(LINE - 1));
    s->frames = (struct frame **)&s->addrs[depth];
    return s;
}

static struct stack *stack_new(const struct stack_key *k)
{
    struct stack *s = stack_alloc(k->depth);
    if (s == NULL)
        return NULL;
    s->epoch = k->epoch;
    atomic_store_explicit(&s->checked, modmap_unload_gen(),
                          memory_order_relaxed);
    s->depth = k->depth;
    memcpy(s->addrs, k->addrs, k->depth * sizeof(uintptr_t));
    for (unsigned i = 0; i < k->depth; i++) {
        s->frames[i] = frametab_get((uintptr_t)k->addrs[i]);
        if (s->frames[i] == NULL)
            return NULL;
    }
    return s;
}

/* Stacks this thread met lately, by hash: a hit spares the probe of the
 * shared table (a cache miss once it is big).  The hash in the cache says
 * which entry may match, so a miss reads no stack. */
#define RECENT 64
static __thread struct recent {
    uint64_t hash;
    struct stack *s;
} recent[RECENT] __attribute__((tls_model("initial-exec")));

static struct recent *recent_slot(uint64_t hash)
{
    return &recent[(hash >> 40) % RECENT];
}

/* Whether S's frames still describe the code at their addresses (only a
 * dlclose() can change that: see frametab_check). */
static int still_valid(struct stack *s)
{
    unsigned gen = modmap_unload_gen();
    if (atomic_load_explicit(&s->checked, memory_order_relaxed) == gen)
        return 1;
    for (unsigned i = 0; i < s->depth; i++)
        if (!frametab_check(s->frames[i]))
            return 0;
    atomic_store_explicit(&s->checked, gen, memory_order_relaxed);
    return 1;
}

static struct stack *lookup(void *const *addrs, int n)
{
    struct stack_key key = { addrs, (unsigned)n, frametab_epoch() };
    uint64_t hash = stackhash(addrs, n, key.epoch);
    struct recent *r = recent_slot(hash);
    if (r->hash == hash && r->s && stack_eq(&r->s->e, &key))
        return r->s;
    struct stack *s = (struct stack *)cmap_find(&stacks, hash, stack_eq, &key);
    if (s == NULL) {
        s = stack_new(&key);
        if (s == NULL)
            return NULL;
        s = (struct stack *)cmap_insert(&stacks, &s->e, hash, stack_eq, &key);
        if (s == NULL)
            return NULL;
    }
    r->hash = hash;
    r->s = s;
    return s;
}

struct stack *stacktab_intern(void *const *addrs, int n)
{
    struct stack *s;
    do
        s = lookup(addrs, n);
    while (s && !still_valid(s));
    return s;
}

struct each_arg {
    void (*fn)(struct stack *, void *);
    void *arg;
};

static void each_entry(struct cmap_entry *e, void *arg)
{
    struct each_arg *a = arg;
    a->fn((struct stack *)e, a->arg);
}

void stacktab_each(void (*fn)(struct stack *, void *), void *arg)
{
    struct each_arg a = { fn, arg };
    cmap_each(&stacks, each_entry, &a);
}

uint32_t stacktab_count(void)
{
    return cmap_count(&stacks);
}

void stacktab_lock_for_fork(void)
{
    spin_lock(&stacks.lock);
}

void stacktab_unlock_after_fork(void)
{
    spin_unlock(&stacks.lock);
}
