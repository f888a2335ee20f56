/* SPDX-License-Identifier: GPL-3.0-or-later
 * verdict_shapes.c - the shapes whose verdicts used to depend on stale
 * memory (issue 25), one per argv[1], each block the program means with a
 * size of its own (tests-verdicts.sh names the class each must get, as
 * valgrind --leak-check=full gives it):
 *   churn, churn-threads  heavy malloc/realloc/free, then leaks: glibc's
 *                         free-list words inside recycled chunks
 *   exit-helper, return-helper
 *                         a helper's frame, dead before exit() or before
 *                         main returns, held the only pointer
 *   cycle-helper          a leaked cycle built in a helper
 *   thread-pass           100 threads get a block and return one: the
 *                         exited threads' cached stacks
 *   _exit, _Exit, quick-exit, pthread-exit
 *                         every way out of a process gets verdicts
 *   fork-_exit            a fork child that ends with _exit()
 *   vfork-kill            vfork()+exec, a report, then SIGKILL
 *   dlclose               dlopen()+dlclose(): the loader's own blocks
 *   last-remainder        a leak that glibc's last remainder (a word of
 *                         the main arena, in libc's data) points into
 *   killed                leaks, then "ready PID" and pause() until a
 *                         signal's default action ends it
 *   altstack-mmap, altstack-malloc, altstack-return
 *                         leaks made in a handler on a sigaltstack (mapped,
 *                         or a heap block), then exit() from another
 *                         handler on it, or from main
 * Built at -O1, as verdicts.c. */
#define _GNU_SOURCE
#include "util.h"
#include <dlfcn.h>
#include <mcheck.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Writes only the last byte: the first words keep whatever the allocator
 * left there, as in a block the program fills later or never. */
static void *alloc_unwritten(size_t n)
{
    char *p = malloc(n);
    escape(p);
    p[n - 1] = 1;
    return p;
}

/* ---- churn ------------------------------------------------------------- */

#define CHURN_ROUNDS 20000
#define SLOTS 64

void *kept[16]; /* the still reachable 500-byte blocks */

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Allocates, grows and frees blocks of every bin size, small and large,
 * so that the chunks handed out later come from glibc's bins. */
static void churn(unsigned seed)
{
    void *slot[SLOTS] = { 0 };
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        unsigned i = next_rand(&seed) % SLOTS;
        size_t n = 16 + next_rand(&seed) % 4000;
        if (slot[i] == NULL)
            slot[i] = alloc_unwritten(n);
        else if (next_rand(&seed) % 3 == 0)
            slot[i] = realloc(slot[i], n);
        else {
            free(slot[i]);
            slot[i] = NULL;
        }
    }
    for (int i = 0; i < SLOTS; i++)
        free(slot[i]);
}

/* The threads' churn also trades blocks: a block one thread allocated is
 * often freed or grown by another (into the other's arena's bins). */
static void *shared_slot[SLOTS];
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static void trade(unsigned seed)
{
    for (int r = 0; r < CHURN_ROUNDS / 4; r++) {
        unsigned i = next_rand(&seed) % SLOTS;
        size_t n = 16 + next_rand(&seed) % 4000;
        pthread_mutex_lock(&shared_lock);
        if (shared_slot[i] == NULL)
            shared_slot[i] = alloc_unwritten(n);
        else if (next_rand(&seed) % 3 == 0)
            shared_slot[i] = realloc(shared_slot[i], n);
        else {
            free(shared_slot[i]);
            shared_slot[i] = NULL;
        }
        pthread_mutex_unlock(&shared_lock);
    }
}

static void *churner(void *arg)
{
    long id = (long)arg;
    churn((unsigned)id + 1);
    trade((unsigned)id + 100);
    kept[id] = alloc_unwritten(500);
    alloc_unwritten(1000 + (size_t)id); /* definitely lost */
    return NULL;
}

__attribute__((noinline)) static void case_churn_threads(void)
{
    pthread_t t[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, churner, (void *)i);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < SLOTS; i++)
        free(shared_slot[i]);
}

__attribute__((noinline)) static void case_churn(void)
{
    for (long i = 0; i < 8; i++)
        churner((void *)i);
    for (int i = 0; i < SLOTS; i++)
        free(shared_slot[i]);
}

/* ---- dead frames ----------------------------------------------------------- */

/* Leaves copies of a new block's address all over its frame, then
 * returns: the frame is dead, the block lost. */
__attribute__((noinline)) static void leave_copies(size_t n)
{
    volatile uintptr_t copies[96];
    uintptr_t p = (uintptr_t)alloc_unwritten(n);
    for (int i = 0; i < 96; i++)
        copies[i] = p;
    escape((void *)copies);
}

__attribute__((noinline)) static void make_cycle(void)
{
    volatile uintptr_t copies[96];
    void **a = alloc_unwritten(2101), **b = alloc_unwritten(2102);
    a[0] = b;
    b[0] = a;
    for (int i = 0; i < 96; i++)
        copies[i] = (uintptr_t)(i % 2 ? a : b);
    escape((void *)copies);
}

/* ---- glibc's last remainder --------------------------------------------- */

/* A small request cut from a big free chunk leaves the rest as glibc's
 * last remainder (a word of the main arena's struct, in libc's data); the
 * small block is freed and merges back, and a bigger request gets the
 * whole chunk: the last remainder now points into the middle of that
 * block, which is leaked.  The thread cache of the small size is full
 * when the small block is freed, so that its free reaches the bins.
 * Chunks glibc hands out from elsewhere on the way are kept (still
 * reachable). */
void *lr_kept[4096];
int lr_nkept;

static void *malloc_at(size_t n, uintptr_t want)
{
    for (;;) {
        void *p = malloc(n);
        if ((uintptr_t)p == want || lr_nkept == 4096)
            return p;
        lr_kept[lr_nkept++] = p;
    }
}

__attribute__((noinline)) static void case_last_remainder(void)
{
    void *fill[7];
    for (int i = 0; i < 7; i++)
        fill[i] = used(malloc(300));
    lr_kept[lr_nkept++] = malloc(40); /* no merge with the fill's chunks */
    void *big = used(malloc(3000));
    uintptr_t at = (uintptr_t)big;
    lr_kept[lr_nkept++] = malloc(40); /* nor with the top chunk */
    free(big);
    void *small = malloc_at(300, at);
    for (int i = 0; i < 7; i++)
        free(fill[i]);
    free(small);
    escape(malloc_at(2303, at)); /* definitely lost */
}

/* ---- handlers on a sigaltstack ------------------------------------------ */

/* The first handler leaves copies of a new block's address in its dead
 * frames on the sigaltstack: lost once it returns.  The second runs on
 * the same stack and calls exit() there, while main holds a block in its
 * own frame, which the handler interrupted: still reachable. */
void *alt_stack;

static void leak_in_handler(int sig)
{
    leave_copies(sig == SIGUSR1 ? 2401 : 2403);
}

static void exit_in_handler(int sig)
{
    (void)sig;
    exit(0);
}

__attribute__((noinline)) static void case_altstack(const char *how)
{
    stack_t ss = { .ss_size = 65536 };
    ss.ss_sp = strcmp(how, "malloc") == 0
                   ? malloc(ss.ss_size)
                   : mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    alt_stack = ss.ss_sp;
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_ONSTACK;
    sa.sa_handler = leak_in_handler;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    if (strcmp(how, "return") == 0) {
        raise(SIGUSR2); /* 2403 definitely lost */
        return;
    }
    raise(SIGUSR1); /* 2401 definitely lost */
    sa.sa_handler = exit_in_handler;
    sigaction(SIGUSR2, &sa, NULL);
    volatile uintptr_t held = (uintptr_t)alloc_unwritten(2402);
    raise(SIGUSR2);
    escape((void *)held);
}

/* ---- threads that get and return blocks -------------------------------- */

static void *take_and_give(void *arg)
{
    escape(arg);
    return alloc_unwritten(3100 + ((size_t *)arg)[0] % 100);
}

__attribute__((noinline)) static void case_thread_pass(void)
{
    for (size_t i = 0; i < 100; i++) {
        size_t *given = malloc(3000 + i);
        given[0] = i;
        pthread_t t;
        void *result;
        pthread_create(&t, NULL, take_and_give, given);
        pthread_join(t, &result);
        escape(result);
    }
}

/* ---- ways out ------------------------------------------------------------ */

void *global_block;

static void *last_thread(void *arg)
{
    (void)arg;
    alloc_unwritten(2055); /* definitely lost */
    return NULL;
}

__attribute__((noinline)) static void two_blocks(void)
{
    global_block = alloc_unwritten(2077);
    leave_copies(2055);
}

/* ---- death by a signal ---------------------------------------------------- */

/* Leaves the copies 4 KiB below the caller's frame: deeper than the wait
 * that follows ever reaches, so that none lies in a slot of a live frame
 * (which a scan cannot tell from a live word; valgrind knows it was never
 * written since the frame began). */
__attribute__((noinline)) static void leave_copies_deep(size_t n)
{
    volatile char pad[4096];
    pad[0] = 0;
    leave_copies(n);
    escape((const void *)pad);
}

/* A lost block, a global one and one only main's frame holds, then a wait
 * that the test ends with a signal left at its default action. */
__attribute__((noinline)) static void case_killed(void)
{
    leave_copies_deep(2501); /* definitely lost */
    global_block = alloc_unwritten(2502);
    volatile uintptr_t held = (uintptr_t)alloc_unwritten(2503);
    char line[32];
    int n = snprintf(line, sizeof line, "ready %d\n", (int)getpid());
    if (write(1, line, (size_t)n) != n)
        exit(2);
    for (;;)
        pause();
    escape((void *)held);
}

__attribute__((noinline)) static void case_fork_exit(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        two_blocks();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
}

/* vfork()+exec, then a report that finds a leak, then death by SIGKILL:
 * the log must stay the parent's, and its report stand. */
__attribute__((noinline)) static void case_vfork_kill(void)
{
    leave_copies(2123);
    pid_t pid = vfork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    mtrace(); /* a report: 2123 definitely lost */
    kill(getpid(), SIGKILL);
}

/* Loads the modules named, all at once (the loader's tables of them
 * grow), then unloads them, three times.  The leak comes first: the
 * loader's tables keep entries of unloaded modules past their used
 * length, and a block that took an unloaded link map's place would be
 * named by them (see BLOCK_LOADER in libmtrace/mark.h). */
__attribute__((noinline)) static void case_dlclose(char **names, int n)
{
    leave_copies(2201);
    void *h[64];
    if (n > 64)
        n = 64;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n; i++) {
            h[i] = dlopen(names[i], RTLD_NOW);
            if (h[i] == NULL) {
                say("dlopen: %s\n", dlerror());
                exit(2);
            }
        }
        for (int i = n; i-- > 0;)
            dlclose(h[i]);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *c = argv[1];
    mtrace();
    if (strcmp(c, "churn") == 0)
        case_churn();
    else if (strcmp(c, "churn-threads") == 0)
        case_churn_threads();
    else if (strcmp(c, "exit-helper") == 0) {
        leave_copies(2001);
        exit(0);
    } else if (strcmp(c, "return-helper") == 0) {
        leave_copies(2002);
        return 0;
    } else if (strcmp(c, "cycle-helper") == 0) {
        make_cycle();
        exit(0);
    } else if (strcmp(c, "thread-pass") == 0)
        case_thread_pass();
    else if (strcmp(c, "_exit") == 0) {
        two_blocks();
        _exit(0);
    } else if (strcmp(c, "_Exit") == 0) {
        two_blocks();
        _Exit(0);
    } else if (strcmp(c, "quick-exit") == 0) {
        two_blocks();
        quick_exit(0);
    } else if (strcmp(c, "pthread-exit") == 0) {
        global_block = alloc_unwritten(2077);
        pthread_t t;
        pthread_create(&t, NULL, last_thread, NULL);
        pthread_exit(NULL);
    } else if (strcmp(c, "fork-_exit") == 0)
        case_fork_exit();
    else if (strcmp(c, "vfork-kill") == 0)
        case_vfork_kill();
    else if (strcmp(c, "last-remainder") == 0) {
        case_last_remainder();
        exit(0);
    } else if (strcmp(c, "killed") == 0)
        case_killed();
    else if (strncmp(c, "altstack-", 9) == 0)
        case_altstack(c + 9);
    else if (strcmp(c, "dlclose") == 0 && argc > 2)
        case_dlclose(argv + 2, argc - 2);
    else {
        say("unknown case '%s'\n", c);
        return 2;
    }
    return 0;
}
