/* SPDX-License-Identifier: GPL-3.0-or-later
 * verdicts.c - one program per reachability case (argv[1] names it), for
 * the verdict tests (tests-verdicts.sh).  Every block the program means
 * has a size of its own (1000 and up), so the test can name the class it
 * must get; every other block (libc's, the loader's) must come out still
 * reachable.  Built at -O1: a dead frame's pointer must stay dead. */
#define _GNU_SOURCE
#include "util.h"
#include <dlfcn.h>
#include <mcheck.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void *alloc(size_t n)
{
    void *p = malloc(n);
    escape(p);
    memset(p, 0, n);
    return p;
}

/* ---- roots: module data -------------------------------------------------- */

void *in_data = (void *)1; /* .data */
void *in_bss;              /* .bss  */

__attribute__((noinline)) static void case_global(void)
{
    in_data = alloc(1001);
    in_bss = alloc(1002);
    alloc(1003); /* definitely lost */
}

/* ---- classes -------------------------------------------------------------- */

char *interior;

__attribute__((noinline)) static void case_classes(void)
{
    interior = (char *)alloc(1011) + 100; /* possibly lost */
    void **self = alloc(1021);            /* definitely lost */
    self[0] = self;
    void **a = alloc(1031), **b = alloc(1032), **c = alloc(1033);
    a[0] = b; /* a leaked cycle: one definitely lost, two indirectly */
    b[0] = c;
    c[0] = a;
    void **root = alloc(1041); /* a leaked tree */
    root[0] = alloc(1042);
    root[1] = alloc(1043);
    ((void **)root[1])[0] = alloc(1044);
}

/* ---- a dead frame -------------------------------------------------------- */

__attribute__((noinline)) static void leave_stale(void)
{
    volatile uintptr_t slots[64];
    slots[0] = (uintptr_t)alloc(1051); /* deep in a frame that returns */
    for (int i = 1; i < 64; i++)
        slots[i] = 0;
    escape((void *)slots);
}

__attribute__((noinline)) static void deep(int n)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    if (n)
        deep(n - 1);
    else
        leave_stale();
    escape((void *)pad);
}

/* ---- threads ----------------------------------------------------------- */

static volatile int go_on, ready;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static void set_ready(void)
{
    pthread_mutex_lock(&lock);
    ready++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Holds a block in a local variable while it sleeps on the condition. */
static void *stack_holder(void *arg)
{
    (void)arg;
    void *volatile mine = alloc(1061);
    pthread_mutex_lock(&lock);
    ready++;
    pthread_cond_broadcast(&changed);
    while (!go_on)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    free(mine);
    return NULL;
}

#define MASK 0x5a5a5a5a5a5aul

/* Zeroes the stack just below the caller's frame, where malloc's frames
 * (ours included) left copies of the pointer it returned. */
__attribute__((noinline)) static void scrub_below(void)
{
    volatile char area[4096];
    memset((char *)area, 0, sizeof area);
    escape((void *)area);
}

/* Holds a block in a register only: r13, while it spins. */
static void *register_holder(void *arg)
{
    (void)arg;
    uintptr_t hidden = (uintptr_t)malloc(1062) ^ MASK;
    scrub_below();
    __asm__ volatile("mov %[h], %%r13\n\t"
                     "xor %[m], %%r13\n\t"
                     "lock incl %[ready]\n\t"
                     "1: pause\n\t"
                     "cmpl $0, %[go]\n\t"
                     "je 1b\n\t"
                     "xor %[m], %%r13\n\t"
                     "mov %%r13, %[h]\n\t"
                     "xor %%r13, %%r13"
                     : [h] "+r"(hidden), [ready] "+m"(ready)
                     : [m] "r"(MASK), [go] "m"(go_on)
                     : "r13", "memory", "cc");
    free((void *)(hidden ^ MASK));
    return NULL;
}

static __thread void *tls_slot;

static void *tls_holder(void *arg)
{
    (void)arg;
    tls_slot = alloc(1072);
    set_ready();
    while (!go_on)
        usleep(1000);
    free(tls_slot);
    return NULL;
}

/* Threads hold blocks while main ends collection (the last scan). */
__attribute__((noinline)) static void case_threads(void)
{
    pthread_t t[3];
    void *(*fn[3])(void *) = { stack_holder, register_holder, tls_holder };
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, fn[i], NULL);
    while (ready < 3)
        usleep(1000);
    tls_slot = alloc(1071); /* main's own static TLS */
    muntrace();
    pthread_mutex_lock(&lock);
    go_on = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
}

/* ---- pthread_setspecific, dlopen TLS, pools, realloc --------------------- */

__attribute__((noinline)) static void case_specific(void)
{
    pthread_key_t keys[40];
    for (int i = 0; i < 40; i++)
        pthread_key_create(&keys[i], NULL);
    pthread_setspecific(keys[0], alloc(1081));
    pthread_setspecific(keys[39], alloc(1082)); /* a second-level block */
}

__attribute__((noinline)) static void case_dltls(const char *plugin)
{
    void *h = dlopen(plugin, RTLD_NOW);
    if (h == NULL) {
        say("dlopen: %s\n", dlerror());
        exit(2);
    }
    void (*set)(void *) = (void (*)(void *))dlsym(h, "plugin_set");
    set(alloc(1091));
    /* A failed lookup leaves dlerror state behind. */
    dlsym(h, "no_such_symbol");
}

__attribute__((noinline)) static void case_pool(void)
{
    void **pool = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pool[700000] = alloc(1101);
    pool = NULL;
    escape(&pool);
}

void *moved;

__attribute__((noinline)) static void case_realloc(void)
{
    moved = alloc(1111);
    moved = realloc(moved, 300000); /* to an mmapped chunk: a new block */
    escape(moved);
    void *lost = realloc(alloc(50), 1112);
    escape(lost);
}

/* ---- fork, exit from a thread ----------------------------------------------- */

__attribute__((noinline)) static void case_fork(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        in_bss = alloc(1122);
        alloc(1121);
        exit(0);
    }
    waitpid(pid, NULL, 0);
}

static void *exiting_thread(void *arg)
{
    void *volatile mine = alloc(1132);
    alloc(1133);
    escape(arg);
    exit(0);
    return mine;
}

__attribute__((noinline)) static void case_thread_exit(void)
{
    void *volatile held = alloc(1131);
    pthread_t t;
    pthread_create(&t, NULL, exiting_thread, NULL);
    pthread_join(t, NULL);
    escape(held);
}

/* ---- reports from a signal while eight threads work -------------------- */

static volatile int storm_over;

static void *short_lived(void *arg)
{
    free(used(malloc(32 + (uintptr_t)arg)));
    return NULL;
}

/* Threads being created and exiting all through the storm. */
static void *spawner(void *arg)
{
    (void)arg;
    while (!storm_over) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_lived, NULL) == 0)
            pthread_join(t, NULL);
    }
    return NULL;
}

static void *churner(void *arg)
{
    void *volatile mine = alloc(1142);
    while (!storm_over) {
        void *p = malloc(64 + (uintptr_t)arg);
        escape(p);
        free(p);
    }
    free(mine);
    return NULL;
}

__attribute__((noinline)) static void case_storm(void)
{
    alloc(1141); /* the one definite leak */
    pthread_t t[8], sp;
    for (long i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, churner, (void *)i);
    pthread_create(&sp, NULL, spawner, NULL);
    for (int i = 0; i < 20; i++) {
        usleep(20000);
        kill(getpid(), SIGUSR2);
    }
    usleep(200000);
    storm_over = 1;
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    pthread_join(sp, NULL);
}

/* ---- a thread that blocks every signal ------------------------------------ */

static void *blocking_thread(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    void *volatile mine = alloc(1161);
    set_ready();
    int sig;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, SIGUSR1);
    sigwait(&one, &sig); /* until main sends SIGUSR1 */
    free(mine);
    return NULL;
}

/* It cannot be stopped: the scan gives it up, scans its whole stack,
 * and says so. */
__attribute__((noinline)) static void case_blocked(void)
{
    pthread_t t;
    pthread_create(&t, NULL, blocking_thread, NULL);
    while (ready < 1)
        usleep(1000);
    usleep(20000); /* into sigwait */
    alloc(1162);   /* definitely lost */
    muntrace();
    pthread_kill(t, SIGUSR1);
    pthread_join(t, NULL);
}

/* ---- the program's own LeakSanitizer suppressions ------------------------ */

const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
    return "leak:leak_on_purpose\n";
}

__attribute__((noinline)) static void leak_on_purpose(void)
{
    alloc(1171);
}

/* Zeroes the stack below main's frame: what the cases left there in
 * frames that returned must not be found by exit()'s own frames, which
 * reuse the same addresses (the stale-frame case wants the opposite). */
__attribute__((noinline)) static void scrub_stack(void)
{
    volatile char area[32768];
    memset((char *)area, 0, sizeof area);
    escape((void *)area);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    mtrace();
    if (strcmp(c, "global") == 0)
        case_global();
    else if (strcmp(c, "classes") == 0)
        case_classes();
    else if (strcmp(c, "stale") == 0)
        deep(3);
    else if (strcmp(c, "threads") == 0)
        case_threads();
    else if (strcmp(c, "specific") == 0)
        case_specific();
    else if (strcmp(c, "dltls") == 0 && argc > 2)
        case_dltls(argv[2]);
    else if (strcmp(c, "pool") == 0)
        case_pool();
    else if (strcmp(c, "realloc") == 0)
        case_realloc();
    else if (strcmp(c, "fork") == 0)
        case_fork();
    else if (strcmp(c, "thread-exit") == 0)
        case_thread_exit();
    else if (strcmp(c, "storm") == 0)
        case_storm();
    else if (strcmp(c, "blocked") == 0)
        case_blocked();
    else if (strcmp(c, "lsan-default") == 0)
        leak_on_purpose();
    else if (strcmp(c, "main-stack") == 0) {
        void *volatile held = alloc(1151);
        alloc(1152);
        exit(held != NULL ? 0 : 1); /* main's frame is live in exit() */
    } else {
        say("unknown case '%s'\n", c);
        return 2;
    }
    if (strcmp(c, "stale") != 0)
        scrub_stack();
    return 0;
}
