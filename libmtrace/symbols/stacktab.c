/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stacktab.c - see stacktab.h. */
#include "symbols/stacktab.h"
#include "base/arena.h"
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

static uint64_t stack_hash(void *const *addrs, int n, unsigned epoch)
{
    uint64_t h = 0xcbf29ce484222325ull ^ epoch;
    for (int i = 0; i < n; i++) {
        h ^= (uintptr_t)addrs[i];
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

static int stack_eq(const struct cmap_entry *e, const void *key)
{
    const struct stack *s = (const struct stack *)e;
    const struct stack_key *k = key;
    return s->depth == k->depth && s->epoch == k->epoch &&
           memcmp(s->addrs, k->addrs, k->depth * sizeof(uintptr_t)) == 0;
}

static struct stack *stack_new(const struct stack_key *k, uint64_t hash)
{
    size_t addrs_size = k->depth * sizeof(uintptr_t);
    struct stack *s = arena_alloc(sizeof *s + addrs_size);
    struct frame **frames = arena_alloc(k->depth * sizeof *frames);
    if (s == NULL || frames == NULL)
        return NULL;
    s->e.hash = hash;
    s->epoch = k->epoch;
    atomic_store_explicit(&s->checked, modmap_unload_gen(),
                          memory_order_relaxed);
    s->depth = k->depth;
    memcpy(s->addrs, k->addrs, addrs_size);
    for (unsigned i = 0; i < k->depth; i++) {
        frames[i] = frametab_get((uintptr_t)k->addrs[i]);
        if (frames[i] == NULL)
            return NULL;
    }
    s->frames = frames;
    return s;
}

/* Stacks this thread met lately, indexed by their two innermost frames:
 * a hit costs one comparison of the frames instead of hashing them all
 * and probing the shared table. */
#define RECENT 64
static __thread struct stack *recent[RECENT]
    __attribute__((tls_model("initial-exec")));

static unsigned recent_slot(void *const *addrs, int n)
{
    uintptr_t k = (uintptr_t)addrs[0] ^ (n > 1 ? (uintptr_t)addrs[1] >> 3 : 0);
    return (unsigned)((k ^ (k >> 7) ^ (k >> 13)) % RECENT);
}

static int recent_matches(const struct stack *s, const struct stack_key *k)
{
    return s && stack_eq(&s->e, k);
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
    unsigned slot = recent_slot(addrs, n);
    if (recent_matches(recent[slot], &key))
        return recent[slot];
    uint64_t hash = stack_hash(addrs, n, key.epoch);
    struct stack *s = (struct stack *)cmap_find(&stacks, hash, stack_eq, &key);
    if (s == NULL) {
        s = stack_new(&key, hash);
        if (s == NULL)
            return NULL;
        s = (struct stack *)cmap_insert(&stacks, &s->e, stack_eq, &key);
    }
    recent[slot] = s;
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
