/* counters.c - see counters.h.  A thread's set is a two-level table of
 * chunks of 1024 stacks, filled in as the thread meets stacks.
 * GPL-3.0-or-later. */
#include "counters.h"
#include "arena.h"
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define CHUNK_BITS 10
#define CHUNK (1u << CHUNK_BITS)
#define MID 64
#define TOP 256            /* 256 * 64 * 1024 = 16M stacks */

struct counter_set {
    struct counter_set *next_all;              /* every set ever made   */
    struct counter_set *_Atomic next_free;     /* sets of dead threads  */
    struct stack_counts *_Atomic *_Atomic top[TOP];
};

static struct counter_set *_Atomic all_sets;
static struct counter_set *_Atomic free_sets;
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct counter_set *my_set __attribute__((tls_model("initial-exec")));

static void give_back(void *set)
{
    struct counter_set *s = set;
    my_set = NULL;   /* frees after this point take a set anew */
    pthread_mutex_lock(&free_lock);
    s->next_free = atomic_load(&free_sets);
    atomic_store(&free_sets, s);
    pthread_mutex_unlock(&free_lock);
}

static void make_key(void)
{
    pthread_key_create(&exit_key, give_back);
}

static struct counter_set *take_set(void)
{
    pthread_once(&key_once, make_key);
    pthread_mutex_lock(&free_lock);
    struct counter_set *s = atomic_load(&free_sets);
    if (s)
        atomic_store(&free_sets, s->next_free);
    pthread_mutex_unlock(&free_lock);
    if (s == NULL) {
        s = arena_alloc(sizeof *s);
        if (s == NULL)
            return NULL;
        struct counter_set *head = atomic_load(&all_sets);
        do
            s->next_all = head;
        while (!atomic_compare_exchange_weak(&all_sets, &head, s));
    }
    pthread_setspecific(exit_key, s);
    my_set = s;
    return s;
}

/* The counters of ID in set S, created when CREATE. */
static struct stack_counts *lookup(struct counter_set *s, uint32_t id, int create)
{
    uint32_t t = id >> (CHUNK_BITS + 6), m = (id >> CHUNK_BITS) & (MID - 1);
    if (t >= TOP)
        return NULL;
    struct stack_counts *_Atomic *mid = atomic_load(&s->top[t]);
    if (mid == NULL) {
        if (!create || (mid = arena_alloc(MID * sizeof *mid)) == NULL)
            return NULL;
        atomic_store(&s->top[t], mid);
    }
    struct stack_counts *chunk = atomic_load(&mid[m]);
    if (chunk == NULL) {
        if (!create || (chunk = arena_alloc(CHUNK * sizeof *chunk)) == NULL)
            return NULL;
        atomic_store(&mid[m], chunk);
    }
    return &chunk[id & (CHUNK - 1)];
}

struct stack_counts *counters_mine(uint32_t id)
{
    struct counter_set *s = my_set ? my_set : take_set();
    return s ? lookup(s, id, 1) : NULL;
}

/* Single writer: a relaxed load and store, no locked instruction. */
static void bump(long *field, long by)
{
    atomic_long *f = (atomic_long *)field;
    atomic_store_explicit(f, atomic_load_explicit(f, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

void counters_add_alloc(uint32_t id, long bytes)
{
    struct stack_counts *c = counters_mine(id);
    if (c) {
        bump(&c->allocs, 1);
        bump(&c->alloc_bytes, bytes);
    }
}

void counters_add_free(uint32_t id, long bytes)
{
    struct stack_counts *c = counters_mine(id);
    if (c) {
        bump(&c->frees, 1);
        bump(&c->freed_bytes, bytes);
    }
}

void counters_undo_free(uint32_t id, long bytes)
{
    counters_add_free(id, -bytes);
    struct stack_counts *c = counters_mine(id);
    if (c)
        bump(&c->frees, -2);   /* the call above counted one more */
}

static long load(const long *field)
{
    return atomic_load_explicit((atomic_long *)field, memory_order_relaxed);
}

static void add_into(struct stack_counts *sum, const struct stack_counts *c)
{
    sum->allocs += load(&c->allocs);
    sum->alloc_bytes += load(&c->alloc_bytes);
    sum->frees += load(&c->frees);
    sum->freed_bytes += load(&c->freed_bytes);
}

void counters_sum(uint32_t id, struct stack_counts *out)
{
    memset(out, 0, sizeof *out);
    for (struct counter_set *s = atomic_load(&all_sets); s; s = s->next_all) {
        struct stack_counts *c = lookup(s, id, 0);
        if (c)
            add_into(out, c);
    }
}

