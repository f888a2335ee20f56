/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fastunwind.c - Check suite: fastunwind_backtrace against libunwind's
 * unw_backtrace, frame for frame, on -O2 code without frame pointers.
 * The memo of recent walks: test_memo.c.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "fu_test.h"
#include <alloca.h>
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <setjmp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int cxx_templates(struct capture *c);
int cxx_in_catch(struct capture *c);
int cxx_in_cleanup(struct capture *c);
int pltlib_outer(int depth, void (*cb)(void *), void *arg);
int fastunwind_walk(void **frames, int max, uintptr_t ip, uintptr_t sp,
                    uintptr_t bp);

/* ---- 40 distinct functions calling each other ----------------------- */

#define DECLARE(i)                                                             \
    __attribute__((noinline)) int chain##i(int depth, struct capture *c);
#define LEVEL(i, next)                                                         \
    __attribute__((noinline)) int chain##i(int depth, struct capture *c)       \
    {                                                                          \
        volatile char pad[8 * ((i) % 5) + 1]; /* frames of many sizes */       \
        pad[0] = (char)depth;                                                  \
        if (depth == 0)                                                        \
            capture_here(c);                                                   \
        else                                                                   \
            chain##next(depth - 1, c);                                         \
        __asm__ volatile("" ::: "memory");                                     \
        return pad[0];                                                         \
    }
#define TEN(d, a, b, c_, e, f, g, h, k, l, m)                                  \
    d(a) d(b) d(c_) d(e) d(f) d(g) d(h) d(k) d(l) d(m)
TEN(DECLARE, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
TEN(DECLARE, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
TEN(DECLARE, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29)
TEN(DECLARE, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39)
LEVEL(0, 1)
LEVEL(1, 2) LEVEL(2, 3) LEVEL(3, 4) LEVEL(4, 5) LEVEL(5, 6) LEVEL(6, 7)
    LEVEL(7, 8) LEVEL(8, 9) LEVEL(9, 10) LEVEL(10, 11) LEVEL(11, 12)
        LEVEL(12, 13) LEVEL(13, 14) LEVEL(14, 15) LEVEL(15, 16) LEVEL(16, 17)
            LEVEL(17, 18) LEVEL(18, 19) LEVEL(19, 20) LEVEL(20, 21)
                LEVEL(21, 22) LEVEL(22, 23) LEVEL(23, 24) LEVEL(24, 25)
                    LEVEL(25, 26) LEVEL(26, 27) LEVEL(27, 28) LEVEL(28, 29)
                        LEVEL(29, 30) LEVEL(30, 31) LEVEL(31, 32) LEVEL(32, 33)
                            LEVEL(33, 34) LEVEL(34, 35) LEVEL(35, 36)
                                LEVEL(36, 37) LEVEL(37, 38) LEVEL(38, 39)
                                    LEVEL(39, 39)

                                        START_TEST(test_selftest)
{
    ck_assert_int_eq(fastunwind_selftest(), 0);
}
END_TEST

START_TEST(test_depth_14)
{
    struct capture c;
    chain0(13, &c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 14 + 2);
}
END_TEST

START_TEST(test_depth_40)
{
    struct capture c;
    chain0(39, &c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 40 + 2);
}
END_TEST

/* The second time, every rule comes from the cache; after a flush, none. */
START_TEST(test_cached_and_flushed)
{
    struct capture c;
    for (int round = 0; round < 3; round++) {
        if (round == 2)
            fastunwind_flush();
        chain0(20, &c);
        ASSERT_SAME(&c);
    }
}
END_TEST

START_TEST(test_max)
{
    static const int maxes[] = { 1, 2, 5, 14, 30 };
    struct capture c;
    for (size_t i = 0; i < sizeof maxes / sizeof *maxes; i++) {
        c.n[0] = c.n[1] = -1;
        capture_max(&c, maxes[i]);
        ASSERT_SAME(&c);
        ck_assert_int_le(c.n[0], maxes[i]);
    }
    void *frame = NULL;
    ck_assert_int_eq(fastunwind_backtrace(&frame, 0), 0);
    ck_assert_ptr_null(frame);
}
END_TEST

/* ---- Frames whose CFA is RBP-based: VLAs and alloca ------------------ */

__attribute__((noinline)) static int with_alloca(int depth, struct capture *c)
{
    char *buf = alloca((size_t)depth * 24 + 40);
    memset(buf, 1, (size_t)depth * 24 + 40);
    if (depth == 0)
        capture_here(c);
    else
        with_alloca(depth - 1, c);
    __asm__ volatile("" ::"r"(buf) : "memory");
    return buf[0];
}

__attribute__((noinline)) int with_vla(int n, struct capture *c)
{
    char vla[n * 16 + 1];
    memset(vla, 2, sizeof vla);
    int r = n > 3 ? with_vla(n - 1, c) : with_alloca(4, c);
    __asm__ volatile("" ::"r"(vla) : "memory");
    return r + vla[0];
}

/* Over-aligned locals and a VLA: GCC realigns the stack through a DRAP
 * register, and describes the CFA as *(RBP-8). */
__attribute__((noinline)) static int realigned(int n, struct capture *c)
{
    char aligned[64] __attribute__((aligned(64)));
    char vla[n];
    memset(aligned, 3, sizeof aligned);
    memset(vla, 4, sizeof vla);
    int r = n > 2 ? realigned(n - 1, c) : with_vla(5, c);
    __asm__ volatile("" ::"r"(aligned), "r"(vla) : "memory");
    return r + aligned[0] + vla[0];
}

START_TEST(test_realigned_stack)
{
    struct capture c;
    realigned(6, &c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 5 + 2 + 5 + 2);
}
END_TEST

START_TEST(test_alloca_vla)
{
    struct capture c;
    with_vla(8, &c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 5 + 5 + 2);
}
END_TEST

/* ---- C++ ------------------------------------------------------------- */

START_TEST(test_cxx_templates)
{
    struct capture c;
    cxx_templates(&c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 13 + 2);
}
END_TEST

START_TEST(test_cxx_in_catch)
{
    struct capture c;
    ck_assert_int_gt(cxx_in_catch(&c), 0);
    ASSERT_SAME(&c);
}
END_TEST

START_TEST(test_cxx_in_cleanup)
{
    struct capture c;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(cxx_in_cleanup(&c), 1);
    ASSERT_SAME(&c); /* the last destructor's capture */
}
END_TEST

/* ---- Signal handlers ------------------------------------------------- */

static struct capture in_handler;

static void capturing_handler(int sig)
{
    (void)sig;
    capture_here(&in_handler);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void raise_deep(int depth, int sig)
{
    volatile char pad[40];
    pad[0] = (char)depth;
    if (depth == 0)
        raise(sig);
    else
        raise_deep(depth - 1, sig);
    __asm__ volatile("" ::"r"(pad[0]) : "memory");
}

static void signal_case(int flags)
{
    struct sigaction sa = { .sa_handler = capturing_handler,
                            .sa_flags = flags };
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    memset(&in_handler, 0, sizeof in_handler);
    raise_deep(10, SIGUSR1);
    ASSERT_SAME(&in_handler);
    /* Through the signal frame: the handler, __restore_rt, raise's
     * frames, then the 11 of raise_deep. */
    ck_assert_int_ge(in_handler.n[0], 2 + 11 + 2);
}

START_TEST(test_signal)
{
    signal_case(0);
}
END_TEST

START_TEST(test_signal_altstack)
{
    stack_t ss = { .ss_size = 1 << 16 };
    ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(ss.ss_sp, MAP_FAILED);
    ck_assert_int_eq(sigaltstack(&ss, NULL), 0);
    signal_case(SA_ONSTACK);
}
END_TEST

/* A timer interrupts code anywhere, prologues and epilogues included.
 * It runs on the monotonic clock (an hrtimer), where a CPU-time timer
 * (ITIMER_PROF) only fires at scheduler ticks and made the 2000 samples
 * take 8 s of CPU time.  The handler re-arms it, 100-300 us after its own
 * end: a periodic timer faster than the handler would fire again at the
 * very instruction it just sampled, and samples must be independent (the
 * early-stop rate below is a proportion).
 * Where fastunwind gives up early (a PLT stub, say), it must still agree
 * on the frames it found; everywhere else on all of them. */
static volatile sig_atomic_t ticks, exact, prefix, differ;
static char first_difference[4096];
static timer_t sample_timer;

static void arm_sample_timer(void)
{
    static uint32_t lcg = 1;
    lcg = lcg * 1664525u + 1013904223u;
    struct itimerspec in = { .it_value = { 0, 100000 + (lcg >> 8) % 200000 } };
    timer_settime(sample_timer, 0, &in, NULL); /* async-signal-safe */
}

/* The reference itself may fault: libunwind 1.6.2 follows a stale rule
 * at the `ret` of a realigned (DRAP) function built with ASan, reading
 * through a garbage pointer (10% of that build's runs before this guard).
 * A fault whose instruction lies in libunwind drops its sample (counted,
 * and bounded below); any other fault, fastunwind's included, is not
 * caught and fails the test. */
static sigjmp_buf reference_fault;
static volatile sig_atomic_t sampling, reference_faults;
static uintptr_t reference_lo, reference_hi;

static int find_reference(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t fn = (uintptr_t)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && fn >= lo &&
            fn < lo + ph->p_memsz) {
            reference_lo = lo;
            reference_hi = lo + ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

static void fault_handler(int sig, siginfo_t *si, void *uc_arg)
{
    (void)si;
    uintptr_t pc = (uintptr_t)((ucontext_t *)uc_arg)->uc_mcontext.gregs[REG_RIP];
    if (sampling && pc >= reference_lo && pc < reference_hi)
        siglongjmp(reference_fault, 1);
    signal(sig, SIG_DFL); /* not ours to hide: fault again, unhandled */
}

static void sample(void)
{
    struct capture c;
    if (sigsetjmp(reference_fault, 1)) {
        sampling = 0;
        reference_faults++;
        return;
    }
    sampling = 1;
    capture_here(&c);
    sampling = 0;
    ticks++;
    if (capture_same(&c, first_difference, sizeof first_difference) && ++exact)
        return;
    int n = c.n[0] < c.n[1] ? c.n[0] : c.n[1];
    if (c.n[0] < c.n[1] &&
        memcmp(c.frames[0], c.frames[1], (size_t)n * sizeof(void *)) == 0) {
        if (prefix++ == 0 && differ == 0)
            capture_describe(&c, first_difference, sizeof first_difference);
    } else if (differ++ == 0)
        capture_same(&c, first_difference, sizeof first_difference);
}

static void timer_handler(int sig)
{
    (void)sig;
    sample();
    arm_sample_timer();
}

START_TEST(test_async_signals)
{
    struct sigaction sa = { .sa_handler = timer_handler,
                            .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGPROF, &sa, NULL), 0);
    ck_assert(dl_iterate_phdr(find_reference, (void *)(uintptr_t)unw_backtrace));
    struct sigaction fault = { .sa_sigaction = fault_handler,
                               .sa_flags = SA_SIGINFO | SA_NODEFER };
    sigemptyset(&fault.sa_mask);
    ck_assert_int_eq(sigaction(SIGSEGV, &fault, NULL), 0);
    ck_assert_int_eq(sigaction(SIGBUS, &fault, NULL), 0);
    struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
                            .sigev_signo = SIGPROF };
    ck_assert_int_eq(timer_create(CLOCK_MONOTONIC, &sev, &sample_timer), 0);
    /* libunwind's first unw_backtrace makes its per-thread cache under a
     * pthread_once: a tick inside it would call unw_backtrace again and
     * wait on that once for ever (the test hung, now and then, under
     * load).  One walk before the timer runs makes it. */
    struct capture c;
    capture_here(&c);
    arm_sample_timer();
    while (ticks < 2000) {
        chain0(30, &c);
        with_vla(6, &c);
        realigned(4, &c);
        free(malloc(64));
        struct timespec ts;
        for (int i = 0; i < 20; i++)
            clock_gettime(CLOCK_MONOTONIC, &ts); /* in the vDSO */
    }
    timer_delete(sample_timer);
    if (getenv("FU_SHOW"))
        fprintf(
            stderr,
            "timer: %d stacks, %d the same, %d stopped early, %d differ, "
            "%d faulted in libunwind\n%s",
            (int)ticks, (int)exact, (int)prefix, (int)differ,
            (int)reference_faults,
            prefix ? first_difference : "");
    ck_assert_msg(differ == 0, "%d of %d differ; first:\n%s", (int)differ,
                  (int)ticks, first_difference);
    ck_assert_msg(prefix * 100 <= ticks, "%d of %d stopped early", (int)prefix,
                  (int)ticks);
    ck_assert_msg(reference_faults * 100 <= ticks,
                  "libunwind faulted on %d of %d", (int)reference_faults,
                  (int)ticks);
}
END_TEST

/* ---- Threads --------------------------------------------------------- */

static int thread_mismatches;

static void *thread_body(void *arg)
{
    int seed = (int)(intptr_t)arg;
    struct capture c;
    for (int i = 0; i < 300; i++) {
        if (i % 2)
            chain0((seed + i) % 40, &c);
        else
            with_vla(4 + (seed + i) % 5, &c);
        if (!capture_same(&c, why, sizeof why))
            __atomic_add_fetch(&thread_mismatches, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

START_TEST(test_threads)
{
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(
            pthread_create(&threads[i], NULL, thread_body, (void *)(intptr_t)i),
            0);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    ck_assert_msg(thread_mismatches == 0, "%d mismatches; last:\n%s",
                  thread_mismatches, why);
}
END_TEST

/* A stack of our own, mapped by hand: the walk must learn its pages. */
START_TEST(test_thread_own_stack)
{
    size_t size = 1 << 20;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(stack, MAP_FAILED);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    ck_assert_int_eq(pthread_attr_setstack(&attr, stack, size), 0);
    pthread_t t;
    ck_assert_int_eq(
        pthread_create(&t, &attr, thread_body, (void *)(intptr_t)7), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    munmap(stack, size);
    ck_assert_msg(thread_mismatches == 0, "%d mismatches; last:\n%s",
                  thread_mismatches, why);
}
END_TEST

/* ---- Frames spanning many pages -------------------------------------- */

/* 200 kB frames fit the cached rule; 300 kB ones do not, and are worked
 * out again at every visit. */
#define BIG_FRAME(name, bytes, next)                                           \
    __attribute__((noinline)) static int name(int depth, struct capture *c)    \
    {                                                                          \
        volatile char big[bytes];                                              \
        big[0] = big[sizeof big - 1] = (char)depth;                            \
        next;                                                                  \
        __asm__ volatile("" ::: "memory");                                     \
        return big[0] + big[sizeof big - 1];                                   \
    }
BIG_FRAME(big_leaf, 200 << 10, capture_here(c))
BIG_FRAME(huge_frame, 300 << 10, big_leaf(depth, c))
BIG_FRAME(big_frame, 200 << 10,
          depth ? big_frame(depth - 1, c) : huge_frame(depth, c))

static void *big_frames_thread(void *arg)
{
    struct capture *c = arg;
    for (int i = 0; i < 3; i++) {
        big_frame(4, c);
        if (!capture_same(c, why, sizeof why))
            return NULL;
    }
    return c;
}

START_TEST(test_big_frames)
{
    static struct capture c;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 4 << 20);
    pthread_t t;
    void *ok = NULL;
    ck_assert_int_eq(pthread_create(&t, &attr, big_frames_thread, &c), 0);
    pthread_join(t, &ok);
    pthread_attr_destroy(&attr);
    show(&c);
    ck_assert_msg(ok != NULL, "%s", why);
    ck_assert_int_ge(c.n[0], 8 + 2);
}
END_TEST

/* ---- Other modules --------------------------------------------------- */

typedef int (*plugin_fn)(int, void (*)(void *), void *);

/* Opens NAME from beside the test program and runs its chain. */
static void *run_plugin(const char *name, struct capture *c)
{
    char path[4096];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 32);
    ck_assert_int_gt(len, 0);
    path[len] = 0;
    strcpy(strrchr(path, '/') + 1, name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    plugin_fn chain = (plugin_fn)dlsym(h, "plugin_chain");
    ck_assert_ptr_nonnull(chain);
    chain(12, capture_callback, c);
    return h;
}

START_TEST(test_dlopen)
{
    struct capture c;
    run_plugin("plugin.so", &c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 14 + 2);
}
END_TEST

/* Another module loaded where an unloaded one was: after
 * fastunwind_flush(), none of the old rules are used.  libunwind keeps
 * stale ones too, here, in its global cache (until unw_flush_cache) and in
 * each thread's trace cache (never flushed): the comparison needs both
 * flushed, and a new thread. */
static void *second_plugin(void *arg)
{
    run_plugin("plugin2.so", arg);
    return NULL;
}

START_TEST(test_dlclose_flush)
{
    struct capture c;
    dlclose(run_plugin("plugin.so", &c));
    fastunwind_flush();
    unw_flush_cache(unw_local_addr_space, 0, 0);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, second_plugin, &c), 0);
    pthread_join(t, NULL);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 14 + 2);
}
END_TEST

START_TEST(test_plt)
{
    struct capture c;
    pltlib_outer(9, capture_callback, &c);
    ASSERT_SAME(&c);
    ck_assert_int_ge(c.n[0], 11 + 2);
}
END_TEST

/* ---- Corrupt stacks -------------------------------------------------- */

/* Unwinds from made-up registers over a page of random words, some of them
 * real return addresses (the signal trampoline's too) or pointers into the
 * page, placed right below an inaccessible page: the walk must stop, never
 * fault. */
START_TEST(test_garbage_stack)
{
    long page = 4096;
    char *map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(mprotect(map + 2 * page, page, PROT_NONE), 0);
    uintptr_t *words = (uintptr_t *)(map + page);
    struct capture c;
    chain0(5, &c); /* real return addresses to plant */
    /* and glibc's signal trampoline, from a handler's sa_restorer */
    struct sigaction sa = { .sa_handler = capturing_handler }, old;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
    ck_assert_int_eq(sigaction(SIGUSR2, NULL, &old), 0);
    c.frames[1][0] = (void *)old.sa_restorer;
    ck_assert_ptr_nonnull(c.frames[1][0]);
    unsigned seed = 12345;
    long total = 0, signal_frames = 0;
    for (int round = 0; round < 20000; round++) {
        for (int i = 0; i < 512; i++) {
            unsigned r = rand_r(&seed);
            words[i] = r % 3 == 0 ? (uintptr_t)c.frames[1][r % 8]
                       : r % 3 == 1
                           ? (uintptr_t)(words + (r % 1024))
                           : ((uintptr_t)r << 20) ^ (uintptr_t)rand_r(&seed);
        }
        void *frames[64];
        uintptr_t sp = (uintptr_t)(words + rand_r(&seed) % 512);
        uintptr_t bp = words[rand_r(&seed) % 512];
        uintptr_t ip = (uintptr_t)c.frames[1][rand_r(&seed) % 8];
        int n = fastunwind_walk(frames, 64, ip, sp, bp);
        ck_assert_int_ge(n, 1);
        total += n;
        for (int i = 0; i + 1 < n; i++)
            signal_frames += frames[i] == c.frames[1][0];
    }
    if (getenv("FU_SHOW"))
        fprintf(
            stderr,
            "garbage: %.2f frames a walk, %ld through the signal trampoline\n",
            total / 20000.0, signal_frames);
    munmap(map, 3 * page);
}
END_TEST

static Suite *fastunwind_suite(void)
{
    Suite *s = suite_create("fastunwind");
    TCase *tc = tcase_create("against libunwind");
    tcase_set_timeout(tc, UT_TIMEOUT);
    tcase_add_test(tc, test_selftest);
    tcase_add_test(tc, test_depth_14);
    tcase_add_test(tc, test_depth_40);
    tcase_add_test(tc, test_cached_and_flushed);
    tcase_add_test(tc, test_max);
    tcase_add_test(tc, test_alloca_vla);
    tcase_add_test(tc, test_realigned_stack);
    tcase_add_test(tc, test_cxx_templates);
    tcase_add_test(tc, test_cxx_in_catch);
    tcase_add_test(tc, test_cxx_in_cleanup);
    tcase_add_test(tc, test_signal);
    tcase_add_test(tc, test_signal_altstack);
    tcase_add_test(tc, test_async_signals);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_thread_own_stack);
    tcase_add_test(tc, test_big_frames);
    tcase_add_test(tc, test_dlopen);
    tcase_add_test(tc, test_dlclose_flush);
    tcase_add_test(tc, test_plt);
    tcase_add_test(tc, test_garbage_stack);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    static const ut_suite_fn suites[] = { fastunwind_suite, memo_suite };
    return ut_main(2, suites);
}
