/* SPDX-License-Identifier: GPL-3.0-or-later */
/* roots.c - see roots.h. */
#define _GNU_SOURCE
#include "scan/roots.h"
#include "scan/mainarena.h"
#include "base/real.h"
#include "symbols/maps.h"
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

#define RED_ZONE 128 /* the x86-64 ABI's area below the stack pointer */
#define WORD sizeof(uintptr_t)
/* glibc's per-thread arenas live in heaps of this size, aligned to it
 * (HEAP_MAX_SIZE on 64-bit systems). */
#define ARENA_HEAP_SIZE (64ul << 20)
#define CHUNK_IS_MMAPPED 2u
#define PAGE 4096ul

/* ---- before the stop: what the loader knows --------------------------- */

static int grow(void **arr, size_t *cap, size_t elem, size_t need,
                const struct scratch_ops *ops)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = ops->map(n * elem, ops->ctx);
    if (p == NULL)
        return -1;
    if (*arr) {
        memcpy(p, *arr, *cap * elem);
        ops->unmap(*arr, *cap * elem, ops->ctx);
    }
    *arr = p;
    *cap = n;
    return 0;
}

/* libmtrace.so's own writable segments, and libc's (mainarena.h): found
 * once (roots_init), with the loader; a fork child may not call it
 * (modmap.h). */
static struct addr_range own_segments[8];
static size_t own_nsegments;

/* The writable segments of the module that holds ADDR. */
struct segments_of {
    uintptr_t addr;
    struct addr_range *out;
    size_t cap, n;
};

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct segments_of *want = arg;
    int holds = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && want->addr - lo < ph->p_memsz)
            holds = 1;
    }
    for (int i = 0; holds && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz &&
            want->n < want->cap)
            want->out[want->n++] = (struct addr_range){
                info->dlpi_addr + ph->p_vaddr,
                info->dlpi_addr + ph->p_vaddr + ph->p_memsz
            };
    }
    return holds;
}

static size_t segments_of(const void *addr, struct addr_range *out, size_t cap)
{
    struct segments_of want = { (uintptr_t)addr, out, cap, 0 };
    dl_iterate_phdr(find_segments, &want);
    return want.n;
}

/* What the loader and libc say about threads, looked up once when
 * collection starts (roots_init): dlsym() must not run during a scan, for
 * any successful dlsym() frees the program's pending dlerror() state. */
static struct {
    int done;
    size_t sizeof_pthread;
    long tid_offset;
    size_t tls_static_size;
} thread_layout = { 0, 0, -1, 0 };

void roots_init(void)
{
    if (thread_layout.done)
        return;
    thread_layout.done = 1;
    /* libc's data for thread debuggers describes struct pthread: its
     * size, and each field as {bits, count, offset}. */
    const uint32_t *s = dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread");
    const uint32_t *t = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");
    if (s && t && t[0] == 8 * sizeof(pid_t) && t[2] < *s) {
        thread_layout.sizeof_pthread = *s;
        thread_layout.tid_offset = (long)t[2];
    }
    void (*info)(size_t *, size_t *) = (void (*)(size_t *, size_t *))dlsym(
        RTLD_DEFAULT, "_dl_get_tls_static_info");
    size_t align = 0;
    if (info)
        info(&thread_layout.tls_static_size, &align);
    own_nsegments = segments_of((const void *)(uintptr_t)&roots_init,
                                own_segments,
                                sizeof own_segments / sizeof own_segments[0]);
    struct addr_range libc[4];
    mainarena_init(libc, segments_of((const void *)(uintptr_t)&__libc_malloc,
                                     libc, sizeof libc / sizeof libc[0]));
}

int roots_prepare(struct roots_plan *p)
{
    memset(p, 0, sizeof *p);
    memcpy(p->ownseg, own_segments, sizeof own_segments);
    p->nownseg = own_nsegments;
    p->sizeof_pthread = thread_layout.sizeof_pthread;
    p->tid_offset = thread_layout.tid_offset;
    p->tls_static_size = thread_layout.tls_static_size;
    return 0;
}

/* ---- sorting without memory ---------------------------------------------- */

static void sift(struct addr_range *r, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && r[child + 1].lo > r[child].lo)
            child++;
        if (r[root].lo >= r[child].lo)
            return;
        struct addr_range t = r[root];
        r[root] = r[child];
        r[child] = t;
        root = child;
    }
}

void ranges_sort(struct addr_range *r, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift(r, i, n);
    for (size_t end = n; end-- > 1;) {
        struct addr_range t = r[0];
        r[0] = r[end];
        r[end] = t;
        sift(r, 0, end);
    }
}

size_t ranges_merge(struct addr_range *r, size_t n)
{
    ranges_sort(r, n);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && r[i].lo <= r[out - 1].hi) {
            if (r[i].hi > r[out - 1].hi)
                r[out - 1].hi = r[i].hi;
        } else if (r[i].lo < r[i].hi) {
            r[out++] = r[i];
        }
    }
    return out;
}

/* ---- /proc/self/maps ------------------------------------------------------ */

enum map_kind { MAP_ANON, MAP_HEAP, MAP_STACK, MAP_SPECIAL, MAP_FILE };

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static enum map_kind kind_of(const char *path)
{
    if (*path == '\0' || starts_with(path, "[anon:") ||
        starts_with(path, "/dev/zero") || starts_with(path, "/memfd:") ||
        starts_with(path, "/SYSV"))
        return MAP_ANON;
    if (starts_with(path, "[heap]"))
        return MAP_HEAP;
    if (starts_with(path, "[stack]"))
        return MAP_STACK;
    if (*path == '[')
        return MAP_SPECIAL;
    return MAP_FILE;
}

/* Private mappings, within this file; the kind in the high bits. */
#define MAPF_PRIVATE 16u
#define KIND_SHIFT 8

struct map_reader {
    struct roots *r;
    const struct scratch_ops *ops;
};

static int add_mapping(const struct mapping *m, void *arg)
{
    struct map_reader *mr = arg;
    struct roots *r = mr->r;
    unsigned flags = (m->perms[0] == 'r' ? MAPF_READ : 0) |
                     (m->perms[1] == 'w' ? MAPF_WRITE : 0) |
                     (m->perms[2] == 'x' ? MAPF_EXEC : 0) |
                     (m->perms[3] == 'p' ? MAPF_PRIVATE : 0);
    enum map_kind kind = kind_of(m->path);
    if (kind == MAP_FILE)
        flags |= MAPF_FILE;
    if (!(flags & MAPF_READ) || m->start >= m->end)
        return 0;
    if (grow((void **)&r->maps, &r->capmaps, sizeof *r->maps, r->nmaps + 1,
             mr->ops))
        return -1;
    r->maps[r->nmaps++] = (struct map_info){
        m->start, m->end, flags | (unsigned)kind << KIND_SHIFT
    };
    return 0;
}

/* The readable mappings, from /proc/self/maps, in address order. */
static int read_maps(struct roots *r, const struct scratch_ops *ops)
{
    struct map_reader mr = { r, ops };
    return maps_each(add_mapping, &mr) != 0 ? -1 : 0;
}

static enum map_kind map_kind(const struct map_info *m)
{
    return (enum map_kind)(m->flags >> KIND_SHIFT);
}

static const struct map_info *find_map(const struct roots *r, uintptr_t a)
{
    return map_info_find(r->maps, r->nmaps, a);
}

/* ---- building the root set ------------------------------------------------ */

struct build {
    struct roots *r;
    const struct scratch_ops *ops;
    struct addr_range *excl; /* removed from the anonymous mappings */
    size_t nexcl, capexcl;
    int failed;
};

static void add_range(struct build *b, uintptr_t lo, uintptr_t hi)
{
    struct roots *r = b->r;
    if (lo >= hi)
        return;
    if (grow((void **)&r->ranges, &r->capranges, sizeof *r->ranges,
             r->nranges + 1, b->ops)) {
        b->failed = 1;
        return;
    }
    r->ranges[r->nranges++] = (struct addr_range){ lo, hi };
}

static void add_value(struct build *b, uintptr_t v)
{
    struct roots *r = b->r;
    if (grow((void **)&r->values, &r->capvalues, sizeof *r->values,
             r->nvalues + 1, b->ops)) {
        b->failed = 1;
        return;
    }
    r->values[r->nvalues++] = v;
}

static void exclude(struct build *b, uintptr_t lo, uintptr_t hi)
{
    if (lo >= hi)
        return;
    if (grow((void **)&b->excl, &b->capexcl, sizeof *b->excl, b->nexcl + 1,
             b->ops)) {
        b->failed = 1;
        return;
    }
    b->excl[b->nexcl++] = (struct addr_range){ lo, hi };
}

static int readable_word(const struct roots *r, uintptr_t a)
{
    return map_info_readable(r->maps, r->nmaps, a, WORD);
}

/* A thread descriptor's DTV pointer points one 16-byte entry past the
 * start of the DTV's block (glibc's INSTALL_DTV). */
static void add_dtv(struct build *b, uintptr_t tp)
{
    if (readable_word(b->r, tp + WORD)) {
        uintptr_t dtv = *(const uintptr_t *)(tp + WORD);
        if (dtv)
            add_value(b, dtv - 2 * WORD);
    }
}

/* Static TLS below the thread pointer, and the descriptor above it (the
 * main thread's may span mappings: settle() keeps the readable parts).
 * The static TLS size the loader gives includes its surplus, which a
 * thread's stack may start inside of: a thread whose live stack LIVE_LO
 * (its stack pointer, less the red zone) lies in that range has nothing
 * of its TLS below it, only dead frames. */
static void add_tls(struct build *b, const struct roots_plan *p, uintptr_t tp,
                    uintptr_t live_lo)
{
    if (find_map(b->r, tp) == NULL)
        return;
    uintptr_t lo = tp - p->tls_static_size;
    if (live_lo > lo && live_lo < tp)
        lo = live_lo;
    add_range(b, lo, tp + (p->sizeof_pthread ? p->sizeof_pthread : PAGE));
    add_dtv(b, tp);
}

/* The live part of a stack that SP is in, from RED bytes below SP: up to
 * the end of its block (a stack the program allocated) or its mapping.
 * The dead part below is taken out of the anonymous mappings (only that
 * part: the kernel may have merged the mapping with one of the program's
 * above it).  A thread stopped by signal may have live data in the red
 * zone below its SP; the scanning thread has none there (its SP is that
 * of an entry point that has made calls since, whose stale words must not
 * keep blocks reachable). */
static void add_live_stack(struct build *b, const struct blockset *bs,
                           uintptr_t sp, uintptr_t red)
{
    const struct map_info *m = find_map(b->r, sp);
    if (m == NULL)
        return;
    uintptr_t lo = sp - red < m->lo ? m->lo : sp - red;
    long i = blockset_find(bs, sp);
    if (i >= 0) { /* a heap block: its memory is no root otherwise */
        add_range(b, lo,
                  block_start(bs, (size_t)i) + block_size(bs, (size_t)i));
        return;
    }
    add_range(b, lo, m->hi);
    exclude(b, m->lo, lo);
}

/* Whether the two bytes at A are a "syscall" instruction. */
static int syscall_insn_at(const struct build *b, uintptr_t a)
{
    const struct map_info *m = find_map(b->r, a);
    return m && (m->flags & MAPF_EXEC) && a + 2 <= m->hi &&
           ((const unsigned char *)a)[0] == 0x0f &&
           ((const unsigned char *)a)[1] == 0x05;
}

/* A thread stopped in a system call has nothing live below its stack
 * pointer: the red zone is a leaf function's, and a function that makes a
 * system call and keeps a heap pointer only there, across it, is not to
 * be found.  What lies there is stale (a blocked thread's last calls), and
 * it kept leaks still reachable.  LeakSanitizer never scans the red zone.
 * The instruction pointer is right after the "syscall" instruction, or on
 * it when the kernel set the call up to be restarted. */
static uintptr_t red_zone_at(const struct build *b, uintptr_t ip)
{
    return syscall_insn_at(b, ip - 2) || syscall_insn_at(b, ip) ? 0
                                                                 : RED_ZONE;
}

/* A thread's sigaltstack [LO, HI): what the handlers that ran on it and
 * returned left there is as dead as what lies below a stack pointer
 * (valgrind: no longer addressable), and it kept leaks made in such a
 * handler still reachable.  Only a handler running on it now (SP in it)
 * has live frames, from RED bytes below SP up.  The stack itself stays
 * reachable: only the kernel may hold its address. */
static void add_alt_stack(struct build *b, uintptr_t lo, uintptr_t hi,
                          uintptr_t sp, uintptr_t red)
{
    if (lo == 0 || hi <= lo)
        return;
    add_value(b, lo);
    exclude(b, lo, hi);
    struct roots *r = b->r;
    if (grow((void **)&r->alts, &r->capalts, sizeof *r->alts, r->nalts + 1,
             b->ops)) {
        b->failed = 1;
        return;
    }
    r->alts[r->nalts++] = (struct addr_range){ lo, hi };
    if (sp - lo < hi - lo)
        add_range(b, sp - red < lo ? lo : sp - red, hi);
}

/* A thread in a handler on its sigaltstack: where the handler
 * interrupted its own stack is unknown, so all of that stack is
 * scanned. */
static void add_whole_stack(struct build *b, int is_main, uintptr_t tp)
{
    const struct map_info *m = NULL;
    if (is_main) {
        for (size_t i = 0; i < b->r->nmaps; i++)
            if (map_kind(&b->r->maps[i]) == MAP_STACK)
                m = &b->r->maps[i];
    } else {
        m = find_map(b->r, tp);
    }
    if (m && map_kind(m) == MAP_STACK)
        add_range(b, m->lo, m->hi);
}

/* What a thread's stacks are at a scan: its stack pointer SP, with RED
 * bytes below it live (ALT_RED on its sigaltstack [ALT_LO, ALT_HI)), its
 * thread pointer TP, whether it is the main thread. */
struct thread_stacks {
    uintptr_t sp, red, tp;
    uintptr_t alt_lo, alt_hi, alt_red;
    int is_main;
};

/* Its TLS, its sigaltstack and its own stack (all of it when a handler
 * on its sigaltstack runs now: add_whole_stack). */
static void add_stacks(struct build *b, const struct roots_plan *p,
                       const struct blockset *bs, const struct thread_stacks *s)
{
    int on_alt = s->sp - s->alt_lo < s->alt_hi - s->alt_lo;
    add_tls(b, p, s->tp, on_alt ? 0 : s->sp - s->red);
    add_alt_stack(b, s->alt_lo, s->alt_hi, s->sp, s->alt_red);
    if (on_alt)
        add_whole_stack(b, s->is_main, s->tp);
    else
        add_live_stack(b, bs, s->sp, s->red);
}

static void add_thread(struct build *b, const struct roots_plan *p,
                       const struct blockset *bs,
                       const struct stopped_thread *t, pid_t pid)
{
    for (size_t k = 0; k < STOP_REG_WORDS; k++)
        add_value(b, t->regs[k]);
    struct thread_stacks s = { t->sp, red_zone_at(b, t->regs[REG_RIP]), t->tp,
                               t->alt_lo, t->alt_hi, RED_ZONE, t->tid == pid };
    add_stacks(b, p, bs, &s);
}

/* A glibc thread stack: its top holds the thread's descriptor (its
 * tcbhead_t's tcb and self words point to it), below the top by its size
 * rounded down to the static TLS alignment (up to a page).  Returns 1 and
 * the descriptor when found; *DEAD says the thread exited (glibc keeps
 * such stacks for reuse, tid <= 0: then only the DTV is a root). */
static int stack_descriptor(const struct roots_plan *p,
                            const struct map_info *m, uintptr_t *pd, int *dead)
{
    if (!p->sizeof_pthread || p->tid_offset < 0 ||
        m->hi - m->lo < p->sizeof_pthread + 2 * PAGE)
        return 0;
    uintptr_t top = (m->hi - p->sizeof_pthread) & ~(uintptr_t)63;
    for (uintptr_t d = top; d + PAGE > top; d -= 64) {
        const uintptr_t *w = (const uintptr_t *)d;
        if (w[0] == d && w[2] == d) {
            *pd = d;
            *dead = *(const pid_t *)(d + (uintptr_t)p->tid_offset) <= 0;
            return 1;
        }
    }
    return 0;
}

/* glibc's arena heap: heap_info at the 64 MiB-aligned start. */
static int arena_heap(const struct map_info *m)
{
    if (m->lo % ARENA_HEAP_SIZE || m->hi - m->lo < 4 * WORD)
        return 0;
    const uintptr_t *h = (const uintptr_t *)m->lo;
    uintptr_t ar_ptr = h[0], prev = h[1], size = h[2], mprotect = h[3];
    return ar_ptr && ar_ptr % WORD == 0 && prev % ARENA_HEAP_SIZE == 0 &&
           size % PAGE == 0 && size && size <= ARENA_HEAP_SIZE &&
           mprotect >= size && mprotect <= ARENA_HEAP_SIZE;
}

/* Big blocks in mmapped chunks: the chunk header before the block says
 * so, and where the mapping starts (prev_size). */
static void exclude_mmapped_chunks(struct build *b, const struct blockset *bs)
{
    for (size_t i = 0; i < bs->n; i++) {
        uintptr_t s = block_start(bs, i);
        if ((s & (PAGE - 1)) != 2 * WORD && (s & (PAGE - 1)) != 0)
            continue;
        uintptr_t chunk = s - 2 * WORD;
        if (!readable_word(b->r, chunk))
            continue;
        uintptr_t prev_size = ((const uintptr_t *)chunk)[0];
        uintptr_t size = ((const uintptr_t *)chunk)[1];
        if (size & CHUNK_IS_MMAPPED)
            exclude(b, chunk - prev_size, chunk + (size & ~(uintptr_t)7));
    }
}

/* Adds to the ranges the parts of [LO, HI) outside every range of EX
 * (sorted and disjoint: see ranges_merge). */
static void add_outside(struct build *b, uintptr_t lo, uintptr_t hi,
                        const struct addr_range *ex, size_t nex)
{
    size_t first = 0, last = nex; /* the first exclusion ending after LO */
    while (first < last) {
        size_t mid = first + (last - first) / 2;
        if (ex[mid].hi <= lo)
            first = mid + 1;
        else
            last = mid;
    }
    for (size_t j = first; j < nex && ex[j].lo < hi; j++) {
        if (ex[j].lo > lo)
            add_range(b, lo, ex[j].lo);
        lo = ex[j].hi;
        if (lo >= hi)
            return;
    }
    add_range(b, lo, hi);
}

/* Keeps the readable parts of the ranges, takes libmtrace's own memory
 * out of them, and sorts and merges what is left. */
static void settle(struct build *b, const struct roots_plan *p,
                   const struct own_memory *mine)
{
    struct roots *r = b->r;
    size_t cap = 0, nown = mine->copy(NULL, 0, mine->ctx) + p->nownseg + 64;
    struct addr_range *own = NULL;
    if (grow((void **)&own, &cap, sizeof *own, nown, b->ops)) {
        b->failed = 1;
        return;
    }
    nown = mine->copy(own, cap - p->nownseg, mine->ctx);
    if (nown > cap - p->nownseg) { /* grew meanwhile: cannot be trusted */
        b->failed = 1;
        b->ops->unmap(own, cap * sizeof *own, b->ops->ctx);
        return;
    }
    for (size_t i = 0; i < p->nownseg; i++)
        own[nown++] = p->ownseg[i];
    nown = ranges_merge(own, nown);
    struct addr_range *in = r->ranges;
    size_t n = r->nranges, capin = r->capranges;
    r->ranges = NULL;
    r->nranges = r->capranges = 0;
    for (size_t i = 0; i < n; i++) {
        const struct map_info *m = find_map(r, in[i].lo);
        uintptr_t lo = in[i].lo;
        /* The range may start in a hole and span several mappings. */
        size_t j = m ? (size_t)(m - r->maps) : 0;
        if (m == NULL)
            while (j < r->nmaps && r->maps[j].hi <= lo)
                j++;
        for (; j < r->nmaps && r->maps[j].lo < in[i].hi; j++) {
            uintptr_t a = lo > r->maps[j].lo ? lo : r->maps[j].lo;
            uintptr_t z = in[i].hi < r->maps[j].hi ? in[i].hi : r->maps[j].hi;
            if (a < z)
                add_outside(b, a, z, own, nown);
        }
    }
    if (in)
        b->ops->unmap(in, capin * sizeof *in, b->ops->ctx);
    /* Merge overlaps (a module's .bss is also an anonymous mapping). */
    size_t out = r->nranges = ranges_merge(r->ranges, r->nranges);
    r->root_bytes = 0;
    for (size_t i = 0; i < out; i++)
        r->root_bytes += r->ranges[i].hi - r->ranges[i].lo;
    b->ops->unmap(own, cap * sizeof *own, b->ops->ctx);
}

/* Large ranges keep only their pages that were ever touched (present or
 * swapped out, says /proc/self/pagemap): a page never written holds
 * zeros, and merely reading one costs a page fault (thread stacks and
 * reserved pools are mostly such pages). */
#define SPARSE_MIN (256 * 1024)
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

static uint64_t pagemap_buf[8192];

/* The first run found replaces range I; later ones are added. */
static void emit_run(struct build *b, size_t i, int *have_first, uintptr_t lo,
                     uintptr_t hi)
{
    if (*have_first) {
        add_range(b, lo, hi);
    } else {
        b->r->ranges[i] = (struct addr_range){ lo, hi };
        *have_first = 1;
    }
}

static void split_range(struct build *b, int fd, size_t i)
{
    uintptr_t lo = b->r->ranges[i].lo, hi = b->r->ranges[i].hi, run = 0;
    int have_first = 0, open_run = 0;
    uintptr_t page = lo & ~(PAGE - 1);
    while (page < hi) {
        size_t want = (hi - page + PAGE - 1) / PAGE;
        if (want > sizeof pagemap_buf / sizeof pagemap_buf[0])
            want = sizeof pagemap_buf / sizeof pagemap_buf[0];
        long got = syscall(SYS_pread64, fd, pagemap_buf, want * 8,
                           (long)(page / PAGE * 8));
        if (got <= 0)
            break;
        for (size_t k = 0; k < (size_t)got / 8; k++, page += PAGE) {
            if (pagemap_buf[k] & (PM_PRESENT | PM_SWAPPED)) {
                if (!open_run)
                    run = page < lo ? lo : page, open_run = 1;
            } else if (open_run) {
                emit_run(b, i, &have_first, run, page);
                open_run = 0;
            }
        }
    }
    if (page < hi && !open_run) /* pagemap failed: keep the rest whole */
        run = page < lo ? lo : page, open_run = 1;
    if (open_run)
        emit_run(b, i, &have_first, run, hi);
    if (!have_first)
        b->r->ranges[i].hi = b->r->ranges[i].lo; /* all untouched */
}

static void split_sparse(struct build *b)
{
    struct roots *r = b->r;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/pagemap",
                          O_RDONLY | O_CLOEXEC); /* see maps_each() */
    if (fd < 0)
        fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap",
                          O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t n = r->nranges;
    for (size_t i = 0; i < n && !b->failed; i++)
        if (r->ranges[i].hi - r->ranges[i].lo >= SPARSE_MIN)
            split_range(b, fd, i);
    syscall(SYS_close, fd);
    r->nranges = ranges_merge(r->ranges, r->nranges);
    r->root_bytes = 0;
    for (size_t i = 0; i < r->nranges; i++)
        r->root_bytes += r->ranges[i].hi - r->ranges[i].lo;
}

int roots_collect(struct roots *r, const struct roots_plan *p,
                  const struct world *w, const struct blockset *bs,
                  const struct scanner_self *me, const struct own_memory *own,
                  const struct scratch_ops *ops)
{
    memset(r, 0, sizeof *r);
    /* No mapping at all cannot be: verdicts without roots would call
     * every block lost. */
    if (read_maps(r, ops) || r->nmaps == 0)
        return -1;
    struct build b = { r, ops, NULL, 0, 0, 0 };
    pid_t pid = getpid();
    int main_stopped = 0, main_gone = 0;

    for (size_t i = 0; i < w->nslots; i++) {
        const struct stopped_thread *t = &w->threads[i];
        int state = t->tid ? atomic_load(&t->state) : STOP_EMPTY;
        if (state == STOP_DONE) {
            add_thread(&b, p, bs, t, pid);
            main_stopped |= t->tid == pid;
        }
        /* The main thread ended with pthread_exit(): its stack is dead. */
        main_gone |= state == STOP_GONE && t->tid == pid;
    }
    if (!me->is_own_thread) {
        uintptr_t red = me->ip ? red_zone_at(&b, me->ip) : 0;
        for (size_t k = 0; k < me->nregs; k++)
            add_value(&b, me->regs[k]);
        struct thread_stacks s = { me->sp,     red,        me->tp,
                                   me->alt_lo, me->alt_hi, red,
                                   w->self == pid };
        add_stacks(&b, p, bs, &s);
        main_stopped |= w->self == pid;
    }
    for (size_t i = 0; i < own->nstacks; i++) {
        const struct map_info *m = find_map(r, own->stacks[i]);
        if (m)
            exclude(&b, m->lo, m->hi);
    }
    exclude_mmapped_chunks(&b, bs);
    struct addr_range arena;
    if (mainarena_find(r->maps, r->nmaps, &arena) == 0)
        exclude(&b, arena.lo, arena.hi);
    for (size_t i = 0; i < r->nmaps; i++) {
        const struct map_info *m = &r->maps[i];
        uintptr_t pd;
        int dead;
        if (map_kind(m) == MAP_STACK && !main_stopped && !main_gone)
            add_range(&b, m->lo, m->hi); /* main is not stopped: all of it */
        if (map_kind(m) != MAP_ANON || !(m->flags & MAPF_WRITE))
            continue;
        if (arena_heap(m)) {
            exclude(&b, m->lo, m->hi);
        } else if (stack_descriptor(p, m, &pd, &dead)) {
            /* An exited thread's stack, kept for reuse: nothing in it is
             * live but its descriptor's DTV, which glibc keeps allocated
             * with it.  The rest of the descriptor is stale too: the
             * argument the thread was started with, the value it
             * returned. */
            if (dead)
                exclude(&b, m->lo, m->hi);
            add_dtv(&b, pd); /* a thread that was not stopped has one too */
        }
    }
    b.nexcl = ranges_merge(b.excl, b.nexcl);
    for (size_t i = 0; i < r->nmaps; i++) {
        const struct map_info *m = &r->maps[i];
        /* A writable private file mapping is a module's data, or data the
         * program mapped itself: a module loaded since roots_prepare()
         * is covered too. */
        int file_data = map_kind(m) == MAP_FILE &&
                        (m->flags & (MAPF_WRITE | MAPF_PRIVATE)) ==
                            (MAPF_WRITE | MAPF_PRIVATE);
        if ((map_kind(m) == MAP_ANON || file_data) && (m->flags & MAPF_WRITE))
            add_outside(&b, m->lo, m->hi, b.excl, b.nexcl);
    }
    settle(&b, p, own);
    split_sparse(&b);
    if (b.excl)
        ops->unmap(b.excl, b.capexcl * sizeof *b.excl, ops->ctx);
    /* The heuristics want the mappings in their plain form. */
    for (size_t i = 0; i < r->nmaps; i++)
        r->maps[i].flags &= MAPF_READ | MAPF_WRITE | MAPF_EXEC | MAPF_FILE;
    return b.failed ? -1 : 0;
}

void roots_free(struct roots *r, const struct scratch_ops *ops)
{
    if (r->ranges)
        ops->unmap(r->ranges, r->capranges * sizeof *r->ranges, ops->ctx);
    if (r->values)
        ops->unmap(r->values, r->capvalues * sizeof *r->values, ops->ctx);
    if (r->maps)
        ops->unmap(r->maps, r->capmaps * sizeof *r->maps, ops->ctx);
    if (r->alts)
        ops->unmap(r->alts, r->capalts * sizeof *r->alts, ops->ctx);
    memset(r, 0, sizeof *r);
}
