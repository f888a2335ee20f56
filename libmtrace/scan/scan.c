/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scan.c - see scan.h. */
#define _GNU_SOURCE
#include "base/real.h"
#include "scan/scan.h"
#include "track/offload.h"
#include "../include/mtrace-format.h"
#include "base/config.h"
#include "base/diag.h"
#include "base/fmt.h"
#include "scan/heapwalk.h"
#include "scan/preview.h"
#include "track/livemode.h"
#include "track/livetab.h"
#include "track/xblocks.h"
#include "base/ownmaps.h"
#include "scan/roots.h"
#include "base/sampler.h"
#include "symbols/stacktab.h"
#include "scan/stopworld.h"
#include "scan/suppress.h"
#include "log/tracelog.h"
#include "base/valgrind.h"
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- scratch: raw mmap, every mapping listed (never a root) ---------------
 * pages_map() cannot serve the scan: it takes the registry's lock, which
 * the scan holds while the world is stopped. */

#define SCRATCH_MAX 1024

static struct addr_range scratch[SCRATCH_MAX];
static size_t nscratch;

/* Tables of a big heap take tens of megabytes: they are asked for in huge
 * pages (2 MiB-aligned, MADV_HUGEPAGE), each page fault then costing one
 * trap per 2 MiB instead of one per 4 KiB (a trap is slow under
 * virtualization: ~70 us measured on a pvm guest). */
#define HUGE_PAGE (2ul << 20)

static void *scratch_map(size_t size, void *ctx)
{
    (void)ctx;
    if (nscratch == SCRATCH_MAX || size == 0)
        return NULL;
    size = (size + 4095) & ~(size_t)4095;
    int huge = size >= 2 * HUGE_PAGE;
    size_t want = huge ? size + HUGE_PAGE : size;
    char *p = real_mmap(NULL, want, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (huge) {
        char *aligned = (char *)(((uintptr_t)p + HUGE_PAGE - 1) &
                                 ~(HUGE_PAGE - 1));
        if (aligned > p)
            real_munmap(p, (size_t)(aligned - p));
        if (aligned + size < p + want)
            real_munmap(aligned + size, (size_t)(p + want - (aligned + size)));
        p = aligned;
        madvise(p, size, MADV_HUGEPAGE);
    }
    scratch[nscratch++] = (struct addr_range){ (uintptr_t)p,
                                               (uintptr_t)p + size };
    return p;
}

static void scratch_forget(void *p, size_t size)
{
    real_munmap(p, size);
    for (size_t i = 0; i < nscratch; i++)
        if (scratch[i].lo == (uintptr_t)p) {
            scratch[i] = scratch[--nscratch];
            break;
        }
}

/* Scratch given back while a scan runs (an array that grew) stays mapped,
 * and listed as ours, until the scan is over: /proc/self/maps was read
 * with it mapped, so it may stand among the root ranges, which must be
 * neither unreadable (a fault) nor left as roots (its old contents would
 * keep blocks reachable).  2200 threads' stacks grew the tables so. */
static struct addr_range retired[SCRATCH_MAX];
static size_t nretired;

static void scratch_unmap(void *p, size_t size, void *ctx)
{
    (void)ctx;
    size = (size + 4095) & ~(size_t)4095;
    if (nretired == SCRATCH_MAX) {
        scratch_forget(p, size);
        return;
    }
    retired[nretired++] =
        (struct addr_range){ (uintptr_t)p, (uintptr_t)p + size };
}

static void scratch_release_retired(void)
{
    for (size_t i = 0; i < nretired; i++)
        scratch_forget((void *)retired[i].lo, retired[i].hi - retired[i].lo);
    nretired = 0;
}

static const struct scratch_ops ops = { scratch_map, scratch_unmap, NULL };

/* Our memory for roots.c: the registry (whose lock we hold) and the
 * scratch. */
struct own_copy {
    struct addr_range *out;
    size_t cap, k;
};

/* A tracked mapping (mmap=1) is a block, never a root. */
static void copy_tracked_map(const struct xblock *b, void *arg)
{
    struct own_copy *c = arg;
    if (b->kind == XB_MMAP && c->k < c->cap)
        c->out[c->k++] = (struct addr_range){ b->addr, b->addr + b->size };
}

static size_t copy_own(struct addr_range *out, size_t cap, void *ctx)
{
    (void)ctx;
    size_t n = ownmaps_count(), k = ownmaps_copy(out, cap);
    for (size_t i = 0; i < nscratch; i++, n++)
        if (k < cap)
            out[k++] = scratch[i];
    if (xblocks_count(XB_MMAP)) {
        struct own_copy c = { out, cap, k };
        xblocks_each(copy_tracked_map, &c);
        n += xblocks_count(XB_MMAP);
    }
    return n;
}

/* ---- libmtrace's own threads ----------------------------------------------- */

#define OWN_THREADS_MAX 4
static pid_t own_tids[OWN_THREADS_MAX];
static uintptr_t own_stacks[OWN_THREADS_MAX];
static size_t nown_threads;

void scan_own_thread_started(void)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    size_t i = __atomic_fetch_add(&nown_threads, 1, __ATOMIC_SEQ_CST);
    if (i < OWN_THREADS_MAX) {
        own_stacks[i] = here;
        __atomic_store_n(&own_tids[i], (pid_t)syscall(SYS_gettid),
                         __ATOMIC_SEQ_CST);
    }
}

/* ---- where this thread's stack starts ------------------------------------- */

/* The frame address of the entry point (SCAN_ENTRY), 0 if none.  The
 * prologue pushes the five other callee-saved registers (rbx, r12-r15)
 * right below the saved frame pointer; the entry point's own locals lie
 * below them, and their unused slots hold stale words of calls the
 * program made earlier at the same depth: the scan starts at the last
 * register.  (It started three words lower: once link-time optimisation
 * inlined more into the exit handler, a stale copy of a leaked block's
 * address there kept it "still reachable", tests-verdicts.sh's
 * verdict-cxx.) */
static __thread uintptr_t entry_frame
    __attribute__((tls_model("initial-exec")));

void scan_set_entry(uintptr_t frame)
{
    entry_frame = frame;
}

/* The exit point (scan_set_exit_sp), for the next scan of this thread. */
static __thread uintptr_t exit_sp __attribute__((tls_model("initial-exec")));

void scan_set_exit_sp(uintptr_t sp)
{
    exit_sp = sp;
}

static __thread const ucontext_t *exit_context
    __attribute__((tls_model("initial-exec")));

void scan_set_exit_context(const void *ucontext)
{
    exit_context = ucontext;
}

/* ---- records ------------------------------------------------------------- */

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static char *put_key(char *p, const char *key, uint64_t v)
{
    p = put_str(p, key);
    return fmt_dec(p, v);
}

static unsigned long scan_seq;

static void put_suppression(const char *pattern, void *arg)
{
    (void)arg;
    char line[SUPPRESS_PATTERN_MAX + 64], *p = line;
    p = put_str(p, MTF_REC_SCAN " " MTF_SUPPRESSION_KEYWORD " leak:");
    p = put_str(p, pattern);
    *p++ = '\n';
    tracelog_scan_put(line, (size_t)(p - line));
}

static void put_scan_header(const struct scan_result *res, const char *trigger)
{
    char line[512], *p = line;
    p = put_str(p, MTF_REC_SCAN " " MTF_SCAN_KEYWORD);
    p = put_key(p, " seq=", scan_seq);
    p = put_str(p, " trigger=");
    p = put_str(p, trigger);
    p = put_key(p, " threads=", res->threads);
    p = put_key(p, " stopped=", res->stopped);
    p = put_key(p, " unstopped=", res->unstopped);
    p = put_key(p, " blocks=", res->bs.n);
    p = put_key(p, " scanned=", res->bytes_scanned);
    p = put_key(p, " us=", (uint64_t)(res->seconds * 1e6));
    p = put_key(p, " t=", res->stopped_at_ns);
    *p++ = '\n';
    tracelog_scan_put(line, (size_t)(p - line));
}

/* "#C cost": what the scan cost the program, written after its verdicts
 * once the world runs again (the log's lock is still held). */
static void put_scan_cost(const struct scan_result *res, double wall,
                          double hold, int own)
{
    char line[256], *p = line;
    p = put_str(p, MTF_REC_SCAN " " MTF_COST_KEYWORD);
    p = put_key(p, " seq=", scan_seq);
    p = put_key(p, " us=", (uint64_t)(wall * 1e6));
    p = put_key(p, " stop_us=", (uint64_t)(res->stop_seconds * 1e6));
    p = put_key(p, " hold_us=", (uint64_t)(hold * 1e6));
    /* A program thread that scans is kept from its work the whole time;
     * with libmtrace's thread scanning, the program waits only while the
     * locks are held (the world is stopped within that). */
    p = put_key(p, " stall_us=", (uint64_t)((own ? hold : wall) * 1e6));
    *p++ = '\n';
    tracelog_scan_put(line, (size_t)(p - line));
}

/* "#c PTR" for a malloc block, "#k KIND PTR" for another (xblocks.h). */
static char *put_verdict_head(char *p, unsigned flags)
{
    if (!(flags & BLOCK_KIND_MASK))
        return put_str(p, MTF_REC_VERDICT " ");
    p = put_str(p, MTF_REC_XVERDICT " ");
    p = put_str(p, flags & BLOCK_KIND_POOL ? MTF_KIND_POOL : MTF_KIND_MMAP);
    *p++ = ' ';
    return p;
}

static void put_verdicts(const struct blockset *bs)
{
    for (size_t i = 0; i < bs->n; i++) {
        enum verdict v = block_verdict(bs, i);
        if (v == VERDICT_REACHABLE || (block_flags(bs, i) & BLOCK_FOREIGN))
            continue;
        char line[96], *p = line;
        p = put_verdict_head(p, block_flags(bs, i));
        p = fmt_ptr(p, block_start(bs, i));
        *p++ = ' ';
        *p++ = verdict_letter(v);
        if (v == VERDICT_DEFINITE && bs->indirect[i]) {
            *p++ = ' ';
            p = fmt_dec(p, bs->indirect[i]);
        }
        *p++ = '\n';
        tracelog_scan_put(line, (size_t)(p - line));
    }
}

/* ---- the scan -------------------------------------------------------------- */

/* The dynamic loader's code, where its allocations come from
 * (BLOCK_LOADER): found once, when collection starts. */
static uintptr_t loader_lo, loader_span;

extern void *__tls_get_addr(void *); /* ld.so's alone (libc has an
                                        _dl_find_object of its own) */

static void find_loader(void)
{
    struct dl_find_object obj;
    if (_dl_find_object((void *)(uintptr_t)__tls_get_addr, &obj) == 0) {
        loader_lo = (uintptr_t)obj.dlfo_map_start;
        loader_span = (uintptr_t)obj.dlfo_map_end - loader_lo;
    }
}

static unsigned loader_flag(uint32_t stack)
{
    const struct stack *s = loader_span ? stacktab_by_id(stack) : NULL;
    return s && s->depth && s->addrs[0] - loader_lo < loader_span
               ? BLOCK_LOADER
               : 0;
}

/* A fork child's inherited blocks (LIVE_STACK_INHERITED) are the
 * parent's: walked through, never reported. */
static void add_block(uintptr_t ptr, size_t size, uint32_t stack, void *arg)
{
    blockset_add(arg, ptr, size, stack,
                 stack == LIVE_STACK_INHERITED ? BLOCK_FOREIGN
                                               : loader_flag(stack));
}

/* A pool's block or a tracked mapping (xblocks.h, mark.h). */
static void add_xblock(const struct xblock *b, void *arg)
{
    blockset_add(arg, b->addr, b->size, b->stack,
                 b->kind == XB_POOL ? BLOCK_KIND_POOL : BLOCK_KIND_MMAP);
}

/* A chunk live since before collection started: walked through, never
 * reported. */
static void add_old_chunk(uintptr_t ptr, uint64_t size, void *arg)
{
    blockset_add(arg, ptr, size, 0, BLOCK_FOREIGN);
}

static void sum_classes(struct scan_result *res)
{
    const struct blockset *bs = &res->bs;
    for (size_t i = 0; i < bs->n; i++) {
        if (block_flags(bs, i) & BLOCK_FOREIGN)
            continue;
        struct class_sum *s = &res->sum[block_verdict(bs, i)];
        s->bytes += block_size(bs, i);
        s->blocks++;
    }
}

static const char *first_reason(const struct world *w)
{
    for (size_t i = 0; i < w->nslots; i++)
        if (w->threads[i].tid &&
            atomic_load(&w->threads[i].state) == STOP_ABANDONED)
            return w->threads[i].why;
    return NULL;
}

/* Development aids, MTRACE_SCAN_DEBUG read when collection starts: =1
 * lists the root ranges on stderr, =t the time of each step, =0xADDR the
 * root words and the block words pointing into the block at ADDR (the
 * block's start follows a block word's address), =p the same for each
 * block found possibly lost (the integration suite's verdict tests set
 * it, and show it when a verdict is not the one wanted). */
static int debug_roots, debug_times, debug_possible;
static uintptr_t debug_target;
static struct timespec debug_t0, debug_c0;

static void phase(const char *what)
{
    if (!debug_times)
        return;
    char line[96], *p = line;
    p = put_str(p, "scan phase ");
    p = put_str(p, what);
    *p++ = ' ';
    struct timespec t1, c1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    p = fmt_dec(p, (uint64_t)((t1.tv_sec - debug_t0.tv_sec) * 1000000 +
                              (t1.tv_nsec - debug_t0.tv_nsec) / 1000));
    p = put_str(p, " us, cpu ");
    p = fmt_dec(p, (uint64_t)((c1.tv_sec - debug_c0.tv_sec) * 1000000 +
                              (c1.tv_nsec - debug_c0.tv_nsec) / 1000));
    p = put_str(p, " us\n");
    write(2, line, (size_t)(p - line));
}

static void print_hit(const char *what, uintptr_t where, uintptr_t value)
{
    char line[96], *p = line;
    p = put_str(p, what);
    p = fmt_ptr(p, where);
    *p++ = ' ';
    p = fmt_ptr(p, value);
    *p++ = '\n';
    write(2, line, (size_t)(p - line));
}

static void print_why(const struct roots *r, const struct blockset *bs,
                      uintptr_t target)
{
    long t = blockset_find(bs, target);
    if (t < 0)
        return;
    print_hit("keepers of ", target, block_size(bs, (size_t)t));
    for (size_t i = 0; i < r->nvalues; i++)
        if (blockset_find(bs, r->values[i]) == t)
            print_hit("value #", i, r->values[i]);
    for (size_t i = 0; i < r->nranges; i++)
        for (uintptr_t a = (r->ranges[i].lo + 7) & ~7ul;
             a + 8 <= r->ranges[i].hi; a += 8)
            if (blockset_find(bs, *(const uintptr_t *)a) == t) {
                const struct map_info *m = map_info_find(r->maps, r->nmaps, a);
                print_hit("word at ", a, *(const uintptr_t *)a);
                if (m)
                    print_hit("  in the mapping at ", m->lo, m->hi);
            }
    for (size_t b = 0; b < bs->n; b++) {
        uintptr_t lo = block_start(bs, b), hi = lo + block_size(bs, b);
        for (uintptr_t a = (lo + 7) & ~7ul; a + 8 <= hi; a += 8)
            if (blockset_find(bs, *(const uintptr_t *)a) == t)
                print_hit("block word at ", a, lo);
    }
}

static void print_roots(const struct roots *r)
{
    for (size_t i = 0; i < r->nranges; i++) {
        char line[64], *p = line;
        p = fmt_ptr(p, r->ranges[i].lo);
        *p++ = '-';
        p = fmt_ptr(p, r->ranges[i].hi);
        *p++ = ' ';
        p = fmt_dec(p, r->ranges[i].hi - r->ranges[i].lo);
        *p++ = '\n';
        write(2, line, (size_t)(p - line));
    }
}

/* The flood fill and the verdicts, with the world stopped. */
static int mark_and_classify(struct scan_result *res, const struct world *w,
                             const struct roots_plan *plan,
                             const struct scanner_self *me)
{
    struct roots roots;
    struct own_memory own = { copy_own, NULL, own_stacks,
                              nown_threads < OWN_THREADS_MAX
                                  ? nown_threads
                                  : OWN_THREADS_MAX };
    phase("stopped");
    int failed = roots_collect(&roots, plan, w, &res->bs, me, &own, &ops);
    phase("roots");
    if (debug_roots)
        print_roots(&roots);
    if (debug_target) {
        print_why(&roots, &res->bs, debug_target);
        for (size_t i = 0; i < w->nslots; i++)
            if (w->threads[i].tid)
                print_hit("thread sp ", w->threads[i].sp, w->threads[i].tp);
    }
    if (!failed) {
        struct blockset *bs = &res->bs;
        bs->careful = w->abandoned > 0;
        bs->maps = roots.maps;
        bs->nmaps = roots.nmaps;
        for (size_t i = 0; i < roots.nalts; i++)
            mark_opaque(bs, roots.alts[i].lo, roots.alts[i].hi);
        for (size_t i = 0; i < roots.nvalues; i++)
            mark_value(bs, roots.values[i]);
        for (size_t i = 0; i < roots.nranges; i++)
            mark_range(bs, roots.ranges[i].lo, roots.ranges[i].hi);
        mark_drain(bs);
        phase("marked");
        failed = classify_lost(bs);
        phase("classified");
        for (size_t i = 0; debug_possible && !failed && i < bs->n; i++)
            if (block_verdict(bs, i) == VERDICT_POSSIBLE)
                print_why(&roots, bs, block_start(bs, i));
        bs->maps = NULL;
        bs->nmaps = 0;
        res->root_bytes = roots.root_bytes;
        res->bytes_scanned = bs->bytes_scanned;
    }
    roots_free(&roots, &ops);
    return failed;
}

/* The skip list for world_stop: libmtrace's own threads. */
static size_t own_thread_ids(pid_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < OWN_THREADS_MAX && i < nown_threads; i++) {
        pid_t t = __atomic_load_n(&own_tids[i], __ATOMIC_SEQ_CST);
        if (t)
            out[n++] = t;
    }
    return n;
}

static int scanner_is_own_thread(void)
{
    pid_t me = (pid_t)syscall(SYS_gettid), ids[OWN_THREADS_MAX];
    size_t n = own_thread_ids(ids);
    for (size_t i = 0; i < n; i++)
        if (ids[i] == me)
            return 1;
    return 0;
}

/* Whether this report point's scan wrote a live log's blocks. */
static int survivors_written;

/* The part done with the tracer's locks held: the live table is frozen,
 * the world stops, the verdicts are written after every line logged
 * before the stop. */
static int scan_locked(struct scan_result *res, const char *trigger,
                       const struct roots_plan *plan,
                       const struct scanner_self *me, const struct timespec *t0)
{
    struct blockset *bs = &res->bs;
    if (blockset_init(bs,
                      livetab_count() + heapwalk_count() +
                          xblocks_count(XB_MALLOC) + 1,
                      &ops)) {
        res->failure = "out of memory";
        return -1;
    }
    phase("locked");
    livetab_each(add_block, bs);
    xblocks_each(add_xblock, bs);
    heapwalk_each_live(add_old_chunk, bs);
    phase("collected");
    if (blockset_finish(bs)) {
        res->failure = "out of memory";
        return -1;
    }
    phase("indexed");
    pid_t skip[OWN_THREADS_MAX];
    struct world w;
    struct timespec stop0;
    clock_gettime(CLOCK_MONOTONIC, &stop0);
    if (world_stop(&w, skip, own_thread_ids(skip))) {
        res->failure = "/proc/self/task cannot be read";
        return -1;
    }
    struct timespec stopped;
    clock_gettime(CLOCK_MONOTONIC, &stopped);
    res->stopped_at_ns = (uint64_t)stopped.tv_sec * 1000000000u +
                         (uint64_t)stopped.tv_nsec;
    int failed = mark_and_classify(res, &w, plan, me);
    res->threads = 1 + w.stopped + w.abandoned;
    res->stopped = w.stopped;
    res->unstopped = w.abandoned;
    res->unstopped_why = first_reason(&w);
    res->seconds = seconds_since(t0);
    if (!failed) {
        tracelog_scan_flush();
        if (tracelog_scan_records()) {
            suppress_each(put_suppression, NULL);
            put_scan_header(res, trigger);
            put_verdicts(bs);
            preview_put(bs);
        }
    }
    phase("written");
    world_resume(&w);
    res->stop_seconds = seconds_since(&stop0);
    phase("resumed");
    if (failed)
        res->failure = "out of memory or /proc/self/maps unreadable";
    return failed;
}

/* The callee-saved registers, which may hold the caller's pointers. */
static void save_registers(uintptr_t *r)
{
    __asm__ volatile("mov %%rbx, 0(%0)\n\t"
                     "mov %%rbp, 8(%0)\n\t"
                     "mov %%r12, 16(%0)\n\t"
                     "mov %%r13, 24(%0)\n\t"
                     "mov %%r14, 32(%0)\n\t"
                     "mov %%r15, 40(%0)"
                     :
                     : "r"(r)
                     : "memory");
}

/* Valgrind runs the program on a synthetic CPU in its own process: its
 * tool's memory is mapped there, listed in /proc/self/maps like any
 * writable mapping, and a client's read of it is a SIGSEGV it delivers
 * (valgrind.h). */
static int under_valgrind;

void scan_init(void)
{
    roots_init();
    find_loader();
    under_valgrind = valgrind_running();
    const char *dbg = getenv("MTRACE_SCAN_DEBUG");
    debug_roots = dbg && *dbg == '1';
    debug_times = dbg && *dbg == 't';
    debug_possible = dbg && *dbg == 'p';
    debug_target = dbg && dbg[0] == '0' ? strtoul(dbg, NULL, 16) : 0;
}

static int run(struct scan_result *res, const char *trigger);

/* In a live log, the blocks the log lacks are written at every report
 * point, by the scan or, when none ran, here. */
int scan_run(struct scan_result *res, const char *trigger)
{
    survivors_written = 0;
    offload_drain(); /* the tables hold every event so far */
    int result = run(res, trigger);
    if (!survivors_written)
        livemode_write();
    return result;
}

static int run(struct scan_result *res, const char *trigger)
{
    memset(res, 0, sizeof *res);
    if (!mt_config.reach) {
        res->failure = "off";
        return -1;
    }
    if (mt_sample_rate) { /* most blocks are not in the live table */
        res->failure = "off (sampled)";
        return -1;
    }
    if (under_valgrind) {
        static int said;
        if (!said++ && !valgrind_allocator()) /* else said when it started */
            diag("no reachability verdicts under valgrind (its own memory "
                 "is mapped in the process and cannot be read): every "
                 "unfreed block is listed", NULL);
        res->failure = "off (under valgrind)";
        return -1;
    }
    struct timespec t0, c0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    debug_t0 = t0;
    debug_c0 = c0;
    uintptr_t regs[6], sp, tp;
    save_registers(regs);
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    size_t nregs = 6;
    if (exit_sp > sp && exit_sp - sp < (1u << 20)) {
        sp = exit_sp;
        /* Not the exit path's registers: the program's caller never
         * returns, and our own _exit() saved its caller's in its frame,
         * above the exit point. */
        nregs = 0;
    } else if (entry_frame > sp && entry_frame - sp < (1u << 20)) {
        sp = entry_frame - SCAN_ENTRY_SAVES;
    }
    entry_frame = 0;
    exit_sp = 0;
    struct scanner_self me = { scanner_is_own_thread(), sp, tp, regs, nregs,
                               0, 0, 0 };
    if (exit_context) { /* an end by a signal: its context */
        const greg_t *g = exit_context->uc_mcontext.gregs;
        me.sp = (uintptr_t)g[REG_RSP];
        me.ip = (uintptr_t)g[REG_RIP];
        me.regs = (const uintptr_t *)g;
        me.nregs = NGREG;
        exit_context = NULL;
    }
    stack_t alt;
    if (sigaltstack(NULL, &alt) == 0 && !(alt.ss_flags & SS_DISABLE)) {
        me.alt_lo = (uintptr_t)alt.ss_sp;
        me.alt_hi = (uintptr_t)alt.ss_sp + alt.ss_size;
    }

    struct roots_plan plan;
    roots_prepare(&plan);
    if (world_prepare()) {
        res->failure = "/proc/self/task cannot be read";
        return -1;
    }
    scan_seq++;
    struct timespec hold0;
    clock_gettime(CLOCK_MONOTONIC, &hold0);
    /* The fork handler's order: buffers, log, live table, registry. */
    tracelog_scan_lock();
    livetab_lock_all();
    /* A live log's "+" lines of the blocks it lacks (livemode.h), before
     * the world stops: the table and the log are frozen already.  Before
     * the registry's lock: a stack's first line may map memory for its
     * parts (arena.h), which the registry records. */
    if (livemode_on) {
        tracelog_scan_flush();
        livemode_write_locked();
        phase("survivors");
        survivors_written = 1;
    }
    xblocks_lock();
    ownmaps_lock();
    int failed = scan_locked(res, trigger, &plan, &me, &t0);
    if (!failed && tracelog_scan_records())
        put_scan_cost(res, seconds_since(&t0), seconds_since(&hold0),
                      me.is_own_thread);
    scratch_release_retired();
    ownmaps_unlock();
    xblocks_unlock();
    livetab_unlock_all();
    tracelog_scan_unlock();
    if (failed) {
        blockset_destroy(&res->bs);
        scratch_release_retired();
        return -1;
    }
    sum_classes(res);
    struct timespec c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    res->cpu_seconds = (double)(c1.tv_sec - c0.tv_sec) +
                       (c1.tv_nsec - c0.tv_nsec) / 1e9;
    res->done = 1;
    return 0;
}

void scan_release(struct scan_result *res)
{
    if (res->done)
        blockset_destroy(&res->bs);
    scratch_release_retired();
    res->done = 0;
}
