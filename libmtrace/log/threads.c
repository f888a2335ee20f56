/* SPDX-License-Identifier: GPL-3.0-or-later */
/* threads.c - see threads.h. */
#include "log/threads.h"
#include "base/arena.h"
#include "base/guard.h"
#include "base/spin.h"
#include <pthread.h>

static struct thread_record *_Atomic all_records;
static struct thread_record *free_records;
static struct thread_record *_Atomic by_id[MAX_THREAD_IDS];
static atomic_uint ids_given;
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
__thread struct thread_record *mt_thread_mine
    __attribute__((tls_model("initial-exec")));

/* Thread exit (a TLS destructor): the thread's log lines go out and the
 * record goes back for reuse.  Frees made by later destructors take a
 * record anew. */
static void give_back(void *record)
{
    struct thread_record *r = record;
    /* Guarded: a signal handler that allocates while we hold the buffer's
     * lock must not log into it.  A thread that ends inside the tracer (a
     * handler's pthread_exit) may hold the lock: its lines wait for the
     * next hand-over of every buffer. */
    {
        GUARD_SCOPE(entered);
        if (entered)
            threadlog_hand_over(r);
    }
    mt_thread_mine = NULL;
    mutex_lock(&free_lock, LOCK_RANK_THREADS);
    r->next_free = free_records;
    free_records = r;
    mutex_unlock(&free_lock, LOCK_RANK_THREADS);
}

static void make_key(void)
{
    pthread_key_create(&exit_key, give_back);
}

static struct thread_record *new_record(void)
{
    struct thread_record *r = arena_alloc(sizeof *r);
    if (r == NULL)
        return NULL;
    spin_init(&r->log.lock, LOCK_RANK_BUFFER);
    unsigned id = atomic_fetch_add(&ids_given, 1) + 1;
    if (id < MAX_THREAD_IDS) {
        r->id = id;
        atomic_store(&by_id[id], r);
    }
    struct thread_record *head = atomic_load(&all_records);
    do
        r->next_all = head;
    while (!atomic_compare_exchange_weak(&all_records, &head, r));
    return r;
}

struct thread_record *thread_record_take(void)
{
    pthread_once(&key_once, make_key);
    mutex_lock(&free_lock, LOCK_RANK_THREADS);
    struct thread_record *r = free_records;
    if (r)
        free_records = r->next_free;
    mutex_unlock(&free_lock, LOCK_RANK_THREADS);
    if (r == NULL && (r = new_record()) == NULL)
        return NULL;
    pthread_setspecific(exit_key, r);
    mt_thread_mine = r;
    return r;
}

struct thread_record *thread_record_by_id(unsigned id)
{
    return id < MAX_THREAD_IDS
               ? atomic_load_explicit(&by_id[id], memory_order_acquire)
               : NULL;
}

struct thread_record *thread_records(void)
{
    return atomic_load(&all_records);
}

void threads_reset_after_fork(void)
{
    pthread_mutex_init(&free_lock, NULL);
}
