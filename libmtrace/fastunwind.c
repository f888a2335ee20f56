/* fastunwind.c - x86-64 stack unwinding from .eh_frame call frame
 * information, for unwinding on every allocation.
 *
 * Each frame is stepped with a compact rule: CFA = RSP or RBP + offset,
 * return address at CFA-8, caller's RBP either unchanged or saved at
 * CFA-8k.  A few other kinds of frame are recognised: glibc's signal
 * trampoline (the registers are in the ucontext), GCC's realigned frames
 * (CFA = *(RBP-k)), the PLT's expression, and the outermost frame (return
 * address undefined).  The rule for an address is computed once, by finding
 * its FDE through glibc's lock-free _dl_find_object and the module's
 * .eh_frame_hdr search table and running the CIE and FDE instructions up to
 * that address; it is then kept in a global direct-mapped cache of single
 * 64-bit words, so readers and concurrent writers need no lock and can
 * never see half an entry.  On a cache hit a frame costs two dependent
 * loads: its rule, then the return address.
 *
 * The code runs inside malloc, perhaps in a signal handler or with the
 * loader lock held: no allocation, no lock, no errno change, and every
 * stack word is read only from a page already known to be readable (the
 * pages checked are remembered per thread).  Whatever it cannot describe,
 * it stops at, returning the frames found so far.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "fastunwind.h"
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#if !defined(__x86_64__) || !defined(DLFO_EH_SEGMENT_TYPE)
#error "fastunwind needs x86-64 and glibc 2.35 or later (_dl_find_object)"
#endif

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

/* Return addresses below this are taken as the end of the stack, as
 * libunwind does. */
#define LOWEST_IP 0x4000

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

static uint64_t rule_cache[CACHE_SIZE] __attribute__((aligned(64)));

/* The set's first way; the second follows it (one cache line). */
static inline uint64_t *cache_set(uint64_t pc)
{
    return &rule_cache[((pc ^ (pc >> SET_BITS)) & ((1u << SET_BITS) - 1)) *
                       WAYS];
}

static inline uint64_t cache_tag(uint64_t pc)
{
    return pc >> SET_BITS << TAG_SHIFT;
}

/* Packs RULE below TAG_SHIFT; false if it does not fit. */
static bool rule_pack(const struct rule *r, uint64_t *packed)
{
    uint64_t rbp_code = 0;
    if (r->cfa_off < 0 || (uint64_t)r->cfa_off > CFA_OFF_MASK)
        return false;
    if (r->rbp_off != 0) {
        if (r->rbp_off > 0 || r->rbp_off % 8 != 0 || r->rbp_off < -8 * 255)
            return false;
        rbp_code = (uint64_t)(-r->rbp_off / 8);
    }
    *packed = (uint64_t)r->cfa_off | (r->cfa_rbp ? CFA_RBP_BIT : 0) |
              rbp_code << RBP_SHIFT | (uint64_t)r->kind << KIND_SHIFT;
    return true;
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

static void cache_put(uint64_t pc, const struct rule *r)
{
    uint64_t packed;
    if (pc >= CACHEABLE_LIMIT || !rule_pack(r, &packed))
        return;
    /* The newest rule goes first; the one it displaces moves to the second
     * way (a concurrent reader may miss both for a moment: a slow step). */
    uint64_t *set = cache_set(pc);
    uint64_t first = __atomic_load_n(&set[0], __ATOMIC_RELAXED);
    if (first && (first & TAG_MASK) != cache_tag(pc))
        __atomic_store_n(&set[1], first, __ATOMIC_RELAXED);
    __atomic_store_n(&set[0], cache_tag(pc) | packed, __ATOMIC_RELAXED);
}

static unsigned memo_gen;

void fastunwind_flush(void)
{
    for (uint32_t i = 0; i < CACHE_SIZE; i++)
        __atomic_store_n(&rule_cache[i], 0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&memo_gen, 1, __ATOMIC_RELEASE); /* memos too */
}

/* ---- Safe stack reads ------------------------------------------------
 * A walk reads only inside [lo, hi), pages known to be readable.  Going
 * above hi, each new page is first checked with rt_sigprocmask: given an
 * invalid "how", the kernel copies the 8-byte set from the address (EFAULT
 * if it cannot) and then refuses without changing anything.  The raw
 * syscall leaves errno alone. */

#define PAGE 4096ul
/* A single frame larger than this is taken for a corrupt stack. */
#define MAX_STACK_JUMP (8ul << 20)

struct bounds {
    uintptr_t lo, hi;             /* this walk's readable pages */
    uintptr_t known_lo, known_hi; /* this thread's, from earlier walks */
};

/* The pages this thread's earlier walks found readable, as one word (first
 * page number << 28 | page count) so that a signal handler's walk never
 * sees half an update. */
static __thread uint64_t known_pages __attribute__((tls_model("initial-exec")));
#define KNOWN_COUNT_BITS 28

/* The stack below a frame's RSP that signal delivery leaves alone. */
#define RED_ZONE 128

/* The page holding SP is readable: this thread's stack is in use there. */
static void bounds_start(struct bounds *b, uintptr_t sp)
{
    uint64_t k = known_pages;
    b->known_lo = (uintptr_t)(k >> KNOWN_COUNT_BITS) * PAGE;
    b->known_hi = b->known_lo +
                  (uintptr_t)(k & ((1u << KNOWN_COUNT_BITS) - 1)) * PAGE;
    b->lo = sp & ~(PAGE - 1);
    b->hi = b->lo + PAGE;
    if (sp >= b->known_lo && sp < b->known_hi)
        b->hi = b->known_hi;
}

/* Remembers this walk's pages for the next one, joined with the known
 * ones when they touch. */
static void bounds_keep(const struct bounds *b)
{
    uintptr_t lo = b->lo;
    if (b->known_lo < lo && b->known_hi >= lo)
        lo = b->known_lo;
    uintptr_t count = (b->hi - lo) / PAGE;
    if (lo / PAGE >= 1ull << (64 - KNOWN_COUNT_BITS) ||
        count >= 1u << KNOWN_COUNT_BITS)
        return;
    known_pages = (uint64_t)(lo / PAGE) << KNOWN_COUNT_BITS | count;
}

/* After a signal frame the interrupted stack may be another one, whose
 * red zone may hold the interrupted function's saved RBP: nothing there is
 * known readable yet. */
static void bounds_restart(struct bounds *b, uintptr_t sp)
{
    b->lo = b->hi = (sp - RED_ZONE) & ~(PAGE - 1);
    b->known_lo = b->known_hi = 0;
}

static bool page_readable(uintptr_t page)
{
    register long sigsetsize __asm__("r10") = sizeof(uint64_t);
    long ret = SYS_rt_sigprocmask;
    __asm__ volatile("syscall"
                     : "+a"(ret)
                     : "D"(~0L), "S"(page), "d"(0L), "r"(sigsetsize)
                     : "rcx", "r11", "memory");
    /* EINVAL is the answer after a successful copy; anything else (EFAULT,
     * or a sandbox refusing the call) leaves the page unread. */
    return ret == -EINVAL;
}

/* Makes [lo, hi) reach ADDR + 8, checking each new page on the way (or
 * skipping over the pages known from earlier walks); false if ADDR is
 * below the walk's start, too far above, or a page is unreadable. */
static bool extend(struct bounds *b, uintptr_t addr)
{
    uintptr_t last = (addr + 7) & ~(PAGE - 1);
    if (addr < b->lo || addr + 7 < addr || last - b->hi >= MAX_STACK_JUMP)
        return false;
    while (b->hi <= last) {
        if (b->hi == b->known_lo) {
            b->hi = b->known_hi;
            continue;
        }
        if (!page_readable(b->hi))
            return false;
        b->hi += PAGE;
    }
    return true;
}

static inline bool readable(struct bounds *b, uintptr_t addr)
{
    if (__builtin_expect(addr >= b->lo && addr <= b->hi - 8, 1))
        return true;
    return extend(b, addr);
}

static inline uintptr_t load(uintptr_t addr)
{
    uintptr_t v;
    memcpy(&v, (const void *)addr, sizeof v);
    return v;
}

/* ---- Reading .eh_frame ---------------------------------------------- */

struct cursor {
    const uint8_t *p, *end;
};

static bool rd_u8(struct cursor *c, uint8_t *v)
{
    if (c->p >= c->end)
        return false;
    *v = *c->p++;
    return true;
}

static bool rd_fixed(struct cursor *c, void *v, size_t size)
{
    if ((size_t)(c->end - c->p) < size)
        return false;
    memcpy(v, c->p, size);
    c->p += size;
    return true;
}

static bool rd_uleb(struct cursor *c, uint64_t *v)
{
    uint64_t x = 0;
    uint8_t byte;
    for (unsigned shift = 0;; shift += 7) {
        if (!rd_u8(c, &byte) || shift >= 64)
            return false;
        x |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
    }
    *v = x;
    return true;
}

static bool rd_sleb(struct cursor *c, int64_t *v)
{
    uint64_t x = 0;
    uint8_t byte;
    unsigned shift = 0;
    do {
        if (!rd_u8(c, &byte) || shift >= 64)
            return false;
        x |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40))
        x |= ~0ull << shift;
    *v = (int64_t)x;
    return true;
}

/* DW_EH_PE_* pointer encodings. */
enum {
    PE_ABSPTR = 0x00,
    PE_ULEB128 = 0x01,
    PE_UDATA2 = 0x02,
    PE_UDATA4 = 0x03,
    PE_UDATA8 = 0x04,
    PE_SLEB128 = 0x09,
    PE_SDATA2 = 0x0a,
    PE_SDATA4 = 0x0b,
    PE_SDATA8 = 0x0c,
    PE_PCREL = 0x10,
    PE_DATAREL = 0x30,
    PE_INDIRECT = 0x80,
    PE_OMIT = 0xff,
};

/* Reads a pointer encoded as ENC: absolute or relative to its own place
 * (all x86-64 .eh_frame uses); false for other bases, which we never need.
 * An indirect pointer is returned undereferenced. */
static bool rd_encoded(struct cursor *c, uint8_t enc, uintptr_t *v)
{
    const uint8_t *at = c->p;
    uint64_t u = 0;
    int64_t s;
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    int16_t s16 = 0;
    int32_t s32 = 0;
    bool ok;
    if (enc == PE_OMIT) {
        *v = 0;
        return true;
    }
    switch (enc & 0x0f) {
    case PE_ABSPTR:
    case PE_UDATA8:
    case PE_SDATA8:
        ok = rd_fixed(c, &u, 8);
        break;
    case PE_ULEB128:
        ok = rd_uleb(c, &u);
        break;
    case PE_SLEB128:
        ok = rd_sleb(c, &s);
        u = (uint64_t)s;
        break;
    case PE_UDATA2:
        ok = rd_fixed(c, &u16, 2);
        u = u16;
        break;
    case PE_SDATA2:
        ok = rd_fixed(c, &s16, 2);
        u = (uint64_t)(int64_t)s16;
        break;
    case PE_UDATA4:
        ok = rd_fixed(c, &u32, 4);
        u = u32;
        break;
    case PE_SDATA4:
        ok = rd_fixed(c, &s32, 4);
        u = (uint64_t)(int64_t)s32;
        break;
    default:
        return false;
    }
    if (!ok)
        return false;
    switch (enc & 0x70) {
    case 0:
        break;
    case PE_PCREL:
        u += (uintptr_t)at;
        break;
    default:
        return false;
    }
    *v = (uintptr_t)u;
    return true;
}

/* The FDE that may cover PC, from the binary search table of the module's
 * .eh_frame_hdr (HDR); NULL if there is none or no table. */
static const uint8_t *find_fde(const uint8_t *hdr, uintptr_t pc)
{
    /* Version 1; the table as pairs of 4-byte offsets from HDR. */
    if (hdr[0] != 1 || hdr[3] != (PE_DATAREL | PE_SDATA4))
        return NULL;
    struct cursor c = { hdr + 4, hdr + 4 + 16 };
    uintptr_t eh_frame, count;
    if (hdr[2] == PE_OMIT || !rd_encoded(&c, hdr[1], &eh_frame) ||
        !rd_encoded(&c, hdr[2], &count) || count == 0)
        return NULL;
    const uint8_t *table = c.p;
    size_t lo = 0, hi = count; /* the answer is in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        int32_t start;
        memcpy(&start, table + mid * 8, 4);
        if ((uintptr_t)hdr + (intptr_t)start <= pc)
            lo = mid;
        else
            hi = mid;
    }
    int32_t start, fde;
    memcpy(&start, table + lo * 8, 4);
    memcpy(&fde, table + lo * 8 + 4, 4);
    if ((uintptr_t)hdr + (intptr_t)start > pc)
        return NULL;
    return hdr + fde;
}

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;
    bool augmented; /* 'z': FDEs carry augmentation data */
    bool signal;    /* 'S': a signal trampoline */
    struct cursor insns;
};

struct fde {
    uintptr_t pc_begin, pc_end;
    struct cursor insns;
};

/* An entry's extent from its 4-byte length; 64-bit DWARF is refused. */
static bool entry_extent(const uint8_t *entry, struct cursor *c)
{
    uint32_t len;
    memcpy(&len, entry, 4);
    if (len == 0 || len >= 0xfffffff0u)
        return false;
    c->p = entry + 4;
    c->end = entry + 4 + len;
    return true;
}

/* The augmentation data of a 'z' CIE: the FDE pointer encoding ('R') and
 * the signal frame mark ('S'); the rest is skipped by its length. */
static bool parse_augmentation(struct cursor *c, const char *aug,
                               struct cie *ci)
{
    uint64_t len;
    if (!rd_uleb(c, &len) || len > (uint64_t)(c->end - c->p))
        return false;
    struct cursor data = { c->p, c->p + len };
    c->p += len;
    for (const char *a = aug + 1; *a; a++) {
        uint8_t enc;
        uintptr_t ignored;
        switch (*a) {
        case 'R':
            if (!rd_u8(&data, &ci->fde_enc))
                return false;
            break;
        case 'P':
            if (!rd_u8(&data, &enc) ||
                !rd_encoded(&data, enc & ~PE_INDIRECT, &ignored))
                return false;
            break;
        case 'L':
            if (!rd_u8(&data, &enc))
                return false;
            break;
        case 'S':
            ci->signal = true;
            break;
        default:
            return true; /* unknown: its data is last; the length skips it */
        }
    }
    return true;
}

static bool parse_cie(const uint8_t *entry, struct cie *ci)
{
    struct cursor c;
    uint32_t id;
    uint8_t version, ra8;
    uint64_t ra;
    if (!entry_extent(entry, &c) || !rd_fixed(&c, &id, 4) || id != 0 ||
        !rd_u8(&c, &version) || (version != 1 && version != 3))
        return false;
    const char *aug = (const char *)c.p;
    const uint8_t *nul = memchr(c.p, 0, (size_t)(c.end - c.p));
    if (nul == NULL || (aug[0] != 0 && aug[0] != 'z'))
        return false;
    c.p = nul + 1;
    *ci = (struct cie){ .fde_enc = PE_ABSPTR, .augmented = aug[0] == 'z' };
    if (!rd_uleb(&c, &ci->code_align) || !rd_sleb(&c, &ci->data_align))
        return false;
    if (version == 1 ? !rd_u8(&c, &ra8) : !rd_uleb(&c, &ra))
        return false;
    if (version == 1)
        ra = ra8;
    if (ra != 16 || (ci->augmented && !parse_augmentation(&c, aug, ci)))
        return false;
    ci->insns = c;
    return true;
}

static bool parse_fde(const uint8_t *entry, struct cie *ci, struct fde *fd)
{
    struct cursor c;
    uint32_t cie_off;
    uintptr_t begin, range;
    uint64_t aug_len;
    if (!entry_extent(entry, &c) || !rd_fixed(&c, &cie_off, 4) ||
        cie_off == 0 || !parse_cie(entry + 4 - cie_off, ci))
        return false;
    if ((ci->fde_enc & PE_INDIRECT) || !rd_encoded(&c, ci->fde_enc, &begin) ||
        !rd_encoded(&c, ci->fde_enc & 0x0f, &range))
        return false;
    if (ci->augmented) {
        if (!rd_uleb(&c, &aug_len) || aug_len > (uint64_t)(c.end - c.p))
            return false;
        c.p += aug_len;
    }
    fd->pc_begin = begin;
    fd->pc_end = begin + range;
    fd->insns = c;
    return true;
}

/* ---- Running the CFA instructions ------------------------------------
 * Only three columns matter: the CFA, RBP (DWARF register 6) and the
 * return address (16).  Rules for other registers are parsed and dropped. */

enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

enum reg_how {
    REG_SAME, /* unchanged (or undefined) */
    REG_UNDEFINED,
    REG_AT_CFA, /* saved at CFA + off */
    REG_AT_RBP, /* saved at the address in RBP (with CFA_DRAP) */
    REG_OTHER,  /* anything else: we cannot follow it */
};

enum cfa_how {
    CFA_RSP,
    CFA_RBP,  /* register + offset */
    CFA_DRAP, /* *(RBP - cfa_off) */
    CFA_OTHER,
};

struct reg_rule {
    enum reg_how how;
    int64_t off;
};

struct row {
    enum cfa_how cfa;
    int64_t cfa_off;
    struct reg_rule rbp, ra;
};

#define STATE_STACK 8

struct cfa_run {
    uintptr_t loc, target; /* the row for TARGET is wanted */
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;
    const struct row *initial; /* after the CIE: for DW_CFA_restore */
    struct row stack[STATE_STACK];
    int depth;
};

static void set_reg(struct row *row, uint64_t reg, enum reg_how how,
                    int64_t off)
{
    struct reg_rule rule = { how, off };
    if (reg == DW_RBP)
        row->rbp = rule;
    else if (reg == DW_RA)
        row->ra = rule;
}

static void restore_reg(struct row *row, const struct cfa_run *run,
                        uint64_t reg)
{
    struct row none = { .rbp = { REG_SAME, 0 }, .ra = { REG_OTHER, 0 } };
    const struct row *from = run->initial ? run->initial : &none;
    if (reg == DW_RBP)
        row->rbp = from->rbp;
    else if (reg == DW_RA)
        row->ra = from->ra;
}

static void def_cfa_reg(struct row *row, uint64_t reg)
{
    row->cfa = reg == DW_RSP ? CFA_RSP : reg == DW_RBP ? CFA_RBP : CFA_OTHER;
}

/* Moves the location on by DELTA code units: false once past the target,
 * where the current row is the answer. */
static bool advance(struct cfa_run *run, uint64_t delta)
{
    run->loc += delta * run->code_align;
    return run->loc <= run->target;
}

static bool skip_block(struct cursor *c)
{
    uint64_t len;
    if (!rd_uleb(c, &len) || len > (uint64_t)(c->end - c->p))
        return false;
    c->p += len;
    return true;
}

/* The one CFA expression we follow: the linker's for a lazy PLT entry,
 * CFA = RSP + K + 8 once the entry has pushed its index (16-byte entries
 * whose push ends at offset N):
 *   breg7 K; breg16 0; lit15; and; litN; ge; lit3; shl; plus
 * With the address known, it is an offset from RSP like any other. */
static bool plt_cfa(const uint8_t *expr, uint64_t len, uintptr_t pc,
                    int64_t *off)
{
    static const uint8_t tail[] = { 0x80, 0x00, 0x3f, 0x1a, 0,
                                    0x2a, 0x33, 0x24, 0x22 };
    if (len != 2 + sizeof tail || expr[0] != 0x77 || expr[1] >= 0x40)
        return false;
    for (size_t i = 0; i < sizeof tail; i++)
        if (i != 4 && expr[2 + i] != tail[i])
            return false;
    uint8_t lit = expr[2 + 4];
    if (lit < 0x30 || lit > 0x4f)
        return false;
    *off = expr[1] + ((pc & 15) >= (uintptr_t)(lit - 0x30) ? 8 : 0);
    return true;
}

/* GCC's expressions for a function that realigns its stack through a
 * "dynamic realign argument pointer": the CFA pushed a little below the
 * saved RBP, DW_OP_breg6 -K; DW_OP_deref, and RBP saved where it points,
 * DW_OP_breg6 0. */
static bool drap_cfa(const uint8_t *expr, uint64_t len, int64_t *below_rbp)
{
    if (len != 3 || expr[0] != 0x76 || expr[2] != 0x06 || expr[1] < 0x40 ||
        expr[1] > 0x7f)
        return false;
    *below_rbp = 0x80 - expr[1]; /* a one-byte negative SLEB128 */
    return true;
}

static const uint8_t drap_rbp[] = { 0x76, 0x00 };

static bool read_block(struct cursor *c, const uint8_t **block, uint64_t *len)
{
    if (!rd_uleb(c, len) || *len > (uint64_t)(c->end - c->p))
        return false;
    *block = c->p;
    c->p += *len;
    return true;
}

static int def_cfa_expression(struct cursor *c, struct cfa_run *run,
                              struct row *row)
{
    const uint8_t *expr;
    uint64_t len;
    if (!read_block(c, &expr, &len))
        return -1;
    if (drap_cfa(expr, len, &row->cfa_off))
        row->cfa = CFA_DRAP;
    else if (plt_cfa(expr, len, run->target, &row->cfa_off))
        row->cfa = CFA_RSP;
    else
        row->cfa = CFA_OTHER;
    return 0;
}

static int reg_expression(struct cursor *c, struct row *row)
{
    const uint8_t *expr;
    uint64_t reg, len;
    if (!rd_uleb(c, &reg) || !read_block(c, &expr, &len))
        return -1;
    bool drap = reg == DW_RBP && len == sizeof drap_rbp &&
                memcmp(expr, drap_rbp, len) == 0;
    set_reg(row, reg, drap ? REG_AT_RBP : REG_OTHER, 0);
    return 0;
}

/* Runs one extended (low six bits zero) instruction OP; -1 on a malformed
 * or unknown instruction, 0 to go on, 1 when the target is passed. */
static int run_extended(struct cursor *c, struct cfa_run *run, struct row *row,
                        uint8_t op)
{
    uint64_t reg, u;
    int64_t s;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uintptr_t addr;
    switch (op) {
    case 0x00: /* nop */
        return 0;
    case 0x01: /* set_loc */
        if (!rd_encoded(c, run->fde_enc, &addr))
            return -1;
        run->loc = addr;
        return addr > run->target;
    case 0x02: /* advance_loc1 */
        return rd_u8(c, &u8) ? !advance(run, u8) : -1;
    case 0x03: /* advance_loc2 */
        return rd_fixed(c, &u16, 2) ? !advance(run, u16) : -1;
    case 0x04: /* advance_loc4 */
        return rd_fixed(c, &u32, 4) ? !advance(run, u32) : -1;
    case 0x05: /* offset_extended */
        if (!rd_uleb(c, &reg) || !rd_uleb(c, &u))
            return -1;
        set_reg(row, reg, REG_AT_CFA, (int64_t)u * run->data_align);
        return 0;
    case 0x06: /* restore_extended */
        if (!rd_uleb(c, &reg))
            return -1;
        restore_reg(row, run, reg);
        return 0;
    case 0x07: /* undefined */
        if (!rd_uleb(c, &reg))
            return -1;
        set_reg(row, reg, REG_UNDEFINED, 0);
        return 0;
    case 0x08: /* same_value */
        if (!rd_uleb(c, &reg))
            return -1;
        set_reg(row, reg, REG_SAME, 0);
        return 0;
    case 0x09: /* register */
        if (!rd_uleb(c, &reg) || !rd_uleb(c, &u))
            return -1;
        set_reg(row, reg, REG_OTHER, 0);
        return 0;
    case 0x0a: /* remember_state: the CFA too, as GCC's unwinder does */
        if (run->depth == STATE_STACK)
            return -1;
        run->stack[run->depth++] = *row;
        return 0;
    case 0x0b: /* restore_state */
        if (run->depth == 0)
            return -1;
        *row = run->stack[--run->depth];
        return 0;
    case 0x0c: /* def_cfa */
        if (!rd_uleb(c, &reg) || !rd_uleb(c, &u))
            return -1;
        def_cfa_reg(row, reg);
        row->cfa_off = (int64_t)u;
        return 0;
    case 0x0d: /* def_cfa_register */
        if (!rd_uleb(c, &reg))
            return -1;
        def_cfa_reg(row, reg);
        return 0;
    case 0x0e: /* def_cfa_offset */
        if (!rd_uleb(c, &u))
            return -1;
        row->cfa_off = (int64_t)u;
        return 0;
    case 0x0f: /* def_cfa_expression */
        return def_cfa_expression(c, run, row);
    case 0x10: /* expression */
        return reg_expression(c, row);
    case 0x16: /* val_expression */
        if (!rd_uleb(c, &reg) || !skip_block(c))
            return -1;
        set_reg(row, reg, REG_OTHER, 0);
        return 0;
    case 0x11: /* offset_extended_sf */
        if (!rd_uleb(c, &reg) || !rd_sleb(c, &s))
            return -1;
        set_reg(row, reg, REG_AT_CFA, s * run->data_align);
        return 0;
    case 0x12: /* def_cfa_sf */
        if (!rd_uleb(c, &reg) || !rd_sleb(c, &s))
            return -1;
        def_cfa_reg(row, reg);
        row->cfa_off = s * run->data_align;
        return 0;
    case 0x13: /* def_cfa_offset_sf */
        if (!rd_sleb(c, &s))
            return -1;
        row->cfa_off = s * run->data_align;
        return 0;
    case 0x14: /* val_offset */
    case 0x15: /* val_offset_sf */
        if (!rd_uleb(c, &reg) ||
            (op == 0x14 ? !rd_uleb(c, &u) : !rd_sleb(c, &s)))
            return -1;
        set_reg(row, reg, REG_OTHER, 0);
        return 0;
    case 0x2e: /* GNU_args_size */
        return rd_uleb(c, &u) ? 0 : -1;
    case 0x2f: /* GNU_negative_offset_extended */
        if (!rd_uleb(c, &reg) || !rd_uleb(c, &u))
            return -1;
        set_reg(row, reg, REG_AT_CFA, -(int64_t)u * run->data_align);
        return 0;
    default:
        return -1;
    }
}

/* Runs the instructions in C on ROW until they end or pass the target. */
static bool run_cfa(struct cursor c, struct cfa_run *run, struct row *row)
{
    uint8_t op;
    uint64_t u;
    while (rd_u8(&c, &op)) {
        int r = 0;
        switch (op >> 6) {
        case 1: /* advance_loc */
            r = !advance(run, op & 0x3f);
            break;
        case 2: /* offset */
            if (!rd_uleb(&c, &u))
                return false;
            set_reg(row, op & 0x3f, REG_AT_CFA, (int64_t)u * run->data_align);
            break;
        case 3: /* restore */
            restore_reg(row, run, op & 0x3f);
            break;
        default:
            r = run_extended(&c, run, row, op);
        }
        if (r < 0)
            return false;
        if (r > 0)
            return true;
    }
    return true;
}

/* The row of FD (with its CIE) at address PC. */
static bool row_at(const struct cie *ci, const struct fde *fd, uintptr_t pc,
                   struct row *row)
{
    struct cfa_run run = {
        .loc = fd->pc_begin,
        .target = pc,
        .code_align = ci->code_align,
        .data_align = ci->data_align,
        .fde_enc = ci->fde_enc,
    };
    *row = (struct row){ .cfa = CFA_OTHER,
                         .rbp = { REG_SAME, 0 },
                         .ra = { REG_OTHER, 0 } };
    if (!run_cfa(ci->insns, &run, row))
        return false;
    struct row initial = *row;
    run.initial = &initial;
    run.depth = 0;
    run.loc = fd->pc_begin;
    return run_cfa(fd->insns, &run, row);
}

/* ---- From an address to its rule -------------------------------------- */

/* glibc's __restore_rt: mov $SYS_rt_sigreturn, %rax; syscall. */
static const uint8_t restore_rt_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                           0x00, 0x00, 0x0f, 0x05 };

/* A signal trampoline's FDE starts one byte before the code (so that the
 * lookup at return address - 1 finds it): the code is at PC or PC + 1. */
static bool is_restore_rt(const struct fde *fd, uintptr_t pc)
{
    for (uintptr_t at = pc; at <= pc + 1; at++)
        if (at >= fd->pc_begin && at + sizeof restore_rt_code <= fd->pc_end &&
            memcmp((const void *)at, restore_rt_code, sizeof restore_rt_code) ==
                0)
            return true;
    return false;
}

static void rule_from_row(const struct row *row, struct rule *r)
{
    r->kind = RULE_STOP;
    /* An undefined return address marks the outermost frame (_start,
     * clone); anything but CFA-8 is beyond the compact rule. */
    if (row->cfa == CFA_OTHER || row->ra.how != REG_AT_CFA || row->ra.off != -8)
        return;
    if (row->cfa == CFA_DRAP) {
        if (row->rbp.how == REG_AT_RBP) {
            r->kind = RULE_DRAP;
            r->cfa_off = row->cfa_off;
        }
        return;
    }
    if (row->rbp.how == REG_AT_CFA) {
        if (row->rbp.off >= 0)
            return;
        r->rbp_off = row->rbp.off;
    } else if (row->rbp.how != REG_SAME && row->rbp.how != REG_UNDEFINED) {
        return;
    }
    r->kind = RULE_STANDARD;
    r->cfa_rbp = row->cfa == CFA_RBP;
    r->cfa_off = row->cfa_off;
}

/* Works out the rule for code address PC; false when PC is in no loaded
 * object (a rule worth caching is only found in one). */
/* Code without unwind information (built with -fno-asynchronous-unwind-
 * tables, hand-written, generated at run time): guess a frame-pointer
 * frame, as libunwind does: CFA = RBP + 16, the caller's RBP saved at
 * RBP.  The walk's checks stop it where the guess is wrong. */
static void frame_pointer_guess(struct rule *r)
{
    *r = (struct rule){
        .kind = RULE_STANDARD, .cfa_rbp = true, .cfa_off = 16, .rbp_off = -16
    };
}

static bool compute_rule(uintptr_t pc, struct rule *r, bool *no_info)
{
    struct dl_find_object obj;
    struct cie ci;
    struct fde fd;
    struct row row;
    *r = (struct rule){ .kind = RULE_STOP };
    *no_info = true;
    if (_dl_find_object((void *)pc, &obj) != 0)
        return false;
    const uint8_t *entry = obj.dlfo_eh_frame ? find_fde(obj.dlfo_eh_frame, pc)
                                             : NULL;
    if (entry == NULL || !parse_fde(entry, &ci, &fd) || pc < fd.pc_begin ||
        pc >= fd.pc_end)
        return true;
    *no_info = false;
    if (ci.signal) {
        if (is_restore_rt(&fd, pc))
            r->kind = RULE_SIGNAL;
        return true;
    }
    if (row_at(&ci, &fd, pc, &row))
        rule_from_row(&row, r);
    return true;
}

/* The rule for the frame at IP: a return address (BACK = 1), whose call
 * instruction ends one byte before it and whose rule is cached under IP
 * itself; or where a signal interrupted (BACK = 0), computed each time. */
static void rule_for(uintptr_t ip, uintptr_t back, struct rule *r)
{
    bool no_info;
    if (back && cache_get(ip, r))
        return;
    bool known = compute_rule(ip - back, r, &no_info);
    /* Only a caller (BACK) has surely run its prologue. */
    if (no_info && back)
        frame_pointer_guess(r);
    if (known && back)
        cache_put(ip, r);
}

/* ---- The walk --------------------------------------------------------- */

/* A frame: where it executes, and its RSP and RBP there. */
struct frame {
    uintptr_t ip, sp, bp;
};

enum step_result { STEP_OK, STEP_SIGNAL, STEP_END, STEP_BAD_STACK };

/* The caller's frame lies above this one, its return address between this
 * frame's RSP and the CFA, and the saved RBP there too, or in the red zone
 * below RSP (in an epilogue interrupted by a signal, after its pop):
 * anything else is a corrupt stack (or unwind information we misread). */
static inline bool frame_sane(uintptr_t sp, uintptr_t cfa, uintptr_t rbp_at)
{
    return cfa >= sp + 8 && rbp_at >= sp - RED_ZONE;
}

/* Steps F from a frame to its caller with rule R, checking every read. */
static enum step_result step(struct frame *f, const struct rule *r,
                             struct bounds *b)
{
    uintptr_t cfa, rbp_at, gregs;
    switch (r->kind) {
    case RULE_STANDARD:
        cfa = (r->cfa_rbp ? f->bp : f->sp) + (uintptr_t)r->cfa_off;
        rbp_at = cfa + (uintptr_t)r->rbp_off;
        if (!frame_sane(f->sp, cfa, rbp_at) || !readable(b, cfa - 8) ||
            (r->rbp_off != 0 && !readable(b, rbp_at)))
            return STEP_BAD_STACK;
        f->ip = load(cfa - 8);
        if (r->rbp_off != 0)
            f->bp = load(rbp_at);
        f->sp = cfa;
        return STEP_OK;
    case RULE_DRAP:
        /* The CFA was pushed a little below the saved RBP, in this frame. */
        cfa = f->bp - (uintptr_t)r->cfa_off;
        if (cfa < f->sp - RED_ZONE || !readable(b, cfa))
            return STEP_BAD_STACK;
        cfa = load(cfa);
        rbp_at = f->bp;
        if (!frame_sane(f->sp, cfa, rbp_at) || !readable(b, cfa - 8) ||
            !readable(b, rbp_at))
            return STEP_BAD_STACK;
        f->ip = load(cfa - 8);
        f->bp = load(rbp_at);
        f->sp = cfa;
        return STEP_OK;
    case RULE_SIGNAL:
        /* The handler returned here with RSP at the kernel's ucontext. */
        gregs = f->sp + offsetof(ucontext_t, uc_mcontext.gregs);
        if (!readable(b, gregs + REG_RIP * 8) ||
            !readable(b, gregs + REG_RSP * 8) ||
            !readable(b, gregs + REG_RBP * 8))
            return STEP_BAD_STACK;
        f->ip = load(gregs + REG_RIP * 8);
        f->sp = load(gregs + REG_RSP * 8);
        f->bp = load(gregs + REG_RBP * 8);
        return STEP_SIGNAL;
    default:
        return STEP_END;
    }
}

/* Everything the walk's inline step leaves: cache misses, signal frames,
 * the last frame, reads beyond the pages known readable. */
static __attribute__((noinline)) enum step_result step_slow(struct frame *f,
                                                            struct bounds *b,
                                                            uintptr_t back)
{
    struct rule r;
    rule_for(f->ip, back, &r);
    return step(f, &r, b);
}

#define MEMO_DEPTH 64

/* What a walk may leave for the memo: where each return address was read
 * (SLOTS[k] for FRAMES[k], k >= 1; SLOTS[n] for a final one below
 * LOWEST_IP), and whether the walk can be replayed from them. */
struct walk_trail {
    uintptr_t *slots;
    uintptr_t *rbp_slots, *rbp_values; /* saved RBPs read, in order */
    int rbp_loads;
    bool replayable; /* no slow step, no signal frame: see the memo below */
    bool uses_rbp;   /* some CFA was RBP + offset: the start RBP counts */
    bool ended_low;
};

/* The walk itself.  TRAIL is NULL for plain walks; always inlined, so the
 * plain walk pays nothing for it. */
static inline __attribute__((always_inline)) int walk(void **frames, int max,
                                                      uintptr_t ip,
                                                      uintptr_t sp,
                                                      uintptr_t bp,
                                                      struct walk_trail *trail)
{
    if (max <= 0)
        return 0;
    struct bounds b;
    bounds_start(&b, sp);
    uintptr_t lo = b.lo, hi = b.hi;
    bool keep = true;
    /* A return address is looked up one byte back, inside the call (it
     * may be a noreturn call ending the function); an address where a
     * signal interrupted is the instruction itself. */
    uintptr_t back = 1;
    int n = 0;
    frames[n++] = (void *)ip;
    while (n < max) {
        uint64_t w = cache_word(ip);
        /* A branch rather than a conditional move (which the empty asm
         * prevents): predicted, it keeps RBP off the path from the rule to
         * the CFA. */
        uintptr_t base = sp;
        if (w & CFA_RBP_BIT) {
            base = bp;
            __asm__("" : "+r"(base));
            if (trail)
                trail->uses_rbp = true;
        }
        uintptr_t cfa = base + (w & CFA_OFF_MASK);
        uintptr_t rbp_at = cfa - 8 * ((w >> RBP_SHIFT) & 0xff);
        enum rule_kind kind = (enum rule_kind)((w >> KIND_SHIFT) & KIND_MASK);
        if (__builtin_expect(kind == RULE_STANDARD && back &&
                                 frame_sane(sp, cfa, rbp_at) && rbp_at >= lo &&
                                 cfa <= hi,
                             1)) {
            ip = load(cfa - 8);
            if (trail)
                trail->slots[n] = cfa - 8;
            if (rbp_at != cfa) {
                bp = load(rbp_at);
                if (trail && trail->rbp_loads < MEMO_DEPTH) {
                    trail->rbp_slots[trail->rbp_loads] = rbp_at;
                    trail->rbp_values[trail->rbp_loads++] = bp;
                } else if (trail) {
                    trail->replayable = false;
                }
            }
            sp = cfa;
        } else if (kind == RULE_STOP && back) {
            break;
        } else {
            if (trail)
                trail->replayable = false;
            struct frame f = { ip, sp, bp };
            b.hi = hi;
            enum step_result s = step_slow(&f, &b, back);
            if (s == STEP_END || s == STEP_BAD_STACK) {
                keep = keep && s == STEP_END;
                break;
            }
            ip = f.ip;
            sp = f.sp;
            bp = f.bp;
            back = s != STEP_SIGNAL;
            if (s == STEP_SIGNAL) {
                keep = false;
                bounds_restart(&b, sp);
            }
            lo = b.lo;
            hi = b.hi;
        }
        if (ip < LOWEST_IP) {
            if (trail)
                trail->ended_low = true;
            break;
        }
        frames[n++] = (void *)ip;
    }
    if (keep) {
        b.hi = hi;
        bounds_keep(&b);
    }
    return n;
}

/* The body of fastunwind_backtrace, entered with its caller's state.  The
 * loop keeps the frame in registers and steps inline when the rule is
 * cached, standard and the reads fall in known pages: two dependent loads
 * per frame (the rule, then the return address). */
__attribute__((used, noinline, visibility("hidden"))) int fastunwind_walk(
    void **frames, int max, uintptr_t ip, uintptr_t sp, uintptr_t bp);

int fastunwind_walk(void **frames, int max, uintptr_t ip, uintptr_t sp,
                    uintptr_t bp)
{
    return walk(frames, max, ip, sp, bp, NULL);
}

/* ---- The memo ----------------------------------------------------------
 * A program allocates from the same call sites over and over.  A walk
 * made of cached standard rules is a function of where it starts (return
 * address, RSP, and RBP when some CFA is RBP-based) and of the words it
 * reads on the way: each rule depends on the address only, each CFA on
 * the previous one (or on an RBP read before).  So a walk that starts at
 * the same place and finds the same words at the recorded addresses is the
 * same walk: checking them is independent loads instead of the walk's
 * dependent ones.  Walks through slow steps (a rule computed, a signal
 * frame, an unusual rule) are not memoized; a flush (dlclose) empties the
 * memo. */

#define MEMO_ENTRIES 16

/* What the search for a walk looks at first, kept apart from the entries:
 * the search reads these few cache lines instead of several lines of every
 * entry.  Walks from one call site at one RSP share their first frames and
 * often their last (main and its callers): a middle frame tells most of
 * the others apart with one load. */
struct memo_key {
    uintptr_t ip, sp;           /* the walk's start; ip 0: empty */
    uintptr_t top;              /* the highest word the walk read, 0: none */
    uintptr_t mid_slot, mid_ra; /* a middle frame: slot 0: none */
};

struct memo_entry {
    uintptr_t bp; /* the walk's start, with its key's ip, sp */
    unsigned gen; /* flush generation it was made in */
    int max, n, rbp_loads;
    bool uses_rbp;  /* bp is part of the start */
    bool ended_low; /* stopped at a return address < LOWEST_IP */
    uintptr_t slots[MEMO_DEPTH + 1];
    uintptr_t rbp_slots[MEMO_DEPTH], rbp_values[MEMO_DEPTH];
    void *frames[MEMO_DEPTH];
    void *user; /* the caller's, for this walk's frames */
};

struct fastunwind_memo {
    struct memo_key key[MEMO_ENTRIES];
    struct memo_entry entry[MEMO_ENTRIES];
    unsigned next;           /* the entry a new walk replaces (round robin) */
    struct memo_entry *last; /* the last walk's entry, NULL: not memoized */
};

void **fastunwind_memo_user(struct fastunwind_memo *m)
{
    return m && m->last ? &m->last->user : NULL;
}

size_t fastunwind_memo_size(void)
{
    return sizeof(struct fastunwind_memo);
}


/* Whether key K may be this walk: same start, every word it read on pages
 * known readable (the reads all lie between SP and the top one), and the
 * same middle frame. */
static bool memo_candidate(const struct memo_key *k, uintptr_t ip, uintptr_t sp,
                           const struct bounds *b)
{
    return k->ip == ip && k->sp == sp && k->top <= b->hi - 8 &&
           (k->mid_slot == 0 || load(k->mid_slot) == k->mid_ra);
}

/* Whether candidate E is this walk: its frame count, or 0.
 * B: the pages known readable from SP; GEN: the current flush generation
 * (both the same for every entry, so the caller reads them once). */
static int memo_replay(const struct memo_entry *e, int max, uintptr_t bp,
                       const struct bounds *b, unsigned gen)
{
    if (e->max != max || (e->uses_rbp && e->bp != bp) || e->gen != gen)
        return 0;
    for (int k = 0; k < e->rbp_loads; k++)
        if (e->rbp_slots[k] < b->lo || e->rbp_slots[k] > b->hi - 8 ||
            load(e->rbp_slots[k]) != e->rbp_values[k])
            return 0;
    for (int k = 1; k < e->n; k++)
        if (load(e->slots[k]) != (uintptr_t)e->frames[k])
            return 0;
    if (e->ended_low && load(e->slots[e->n]) >= LOWEST_IP)
        return 0;
    return e->n;
}

__attribute__((used, noinline, visibility("hidden"))) int fastunwind_walk_memo(
    void **frames, int max, struct fastunwind_memo *memo, uintptr_t ip,
    uintptr_t sp, uintptr_t bp);

int fastunwind_walk_memo(void **frames, int max, struct fastunwind_memo *memo,
                         uintptr_t ip, uintptr_t sp, uintptr_t bp)
{
    if (memo == NULL)
        return walk(frames, max, ip, sp, bp, NULL);
    memo->last = NULL;
    if (max > MEMO_DEPTH)
        return walk(frames, max, ip, sp, bp, NULL);
    /* Any entry may hold this walk: calls from many places start at the
     * same RSP, and a mismatch shows at the first return address that
     * differs. */
    struct bounds b;
    bounds_start(&b, sp);
    unsigned gen = __atomic_load_n(&memo_gen, __ATOMIC_ACQUIRE);
    for (int i = 0; i < MEMO_ENTRIES; i++) {
        if (!memo_candidate(&memo->key[i], ip, sp, &b))
            continue;
        struct memo_entry *hit = &memo->entry[i];
        int n = memo_replay(hit, max, bp, &b, gen);
        if (n) {
            memo->last = hit;
            if (hit->user)
                return FASTUNWIND_KNOWN; /* no need for the frames */
            memcpy(frames, hit->frames, (size_t)n * sizeof *frames);
            return n;
        }
    }
    unsigned slot = memo->next++ % MEMO_ENTRIES;
    struct memo_key *key = &memo->key[slot];
    struct memo_entry *e = &memo->entry[slot];
    int n;
    struct walk_trail trail = { e->slots, e->rbp_slots, e->rbp_values, 0,
                                true,     false,        false };
    key->ip = 0; /* a signal handler's walk must not replay a half entry */
    n = walk(frames, max, ip, sp, bp, &trail);
    if (!trail.replayable || n < 1)
        return n;
    memcpy(e->frames, frames, (size_t)n * sizeof *frames);
    e->bp = bp;
    e->uses_rbp = trail.uses_rbp;
    /* Saved RBPs matter only to RBP-based CFAs; elsewhere RBP is just a
     * register that the program's code fills with anything. */
    e->rbp_loads = trail.uses_rbp ? trail.rbp_loads : 0;
    e->max = max;
    e->n = n;
    e->ended_low = trail.ended_low;
    e->gen = gen;
    e->user = NULL;
    int last = e->ended_low ? n : n - 1, mid = n / 2;
    key->sp = sp;
    key->top = last >= 1 ? e->slots[last] : 0;
    key->mid_slot = mid >= 1 ? e->slots[mid] : 0;
    key->mid_ra = mid >= 1 ? (uintptr_t)e->frames[mid] : 0;
    __atomic_store_n(&key->ip, ip, __ATOMIC_RELEASE);
    memo->last = e;
    return n;
}

/* The entry point passes on its caller's return address, RSP after the
 * return, and RBP, all as they are on entry, before any compiled code could
 * change them; the tail call returns straight to the caller. */
__asm__(".text\n"
        ".globl fastunwind_backtrace\n"
        ".hidden fastunwind_backtrace\n"
        ".type fastunwind_backtrace, @function\n"
        ".p2align 4\n"
        "fastunwind_backtrace:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "movq (%rsp), %rdx\n"
        "leaq 8(%rsp), %rcx\n"
        "movq %rbp, %r8\n"
        "jmp fastunwind_walk\n"
        ".cfi_endproc\n"
        ".size fastunwind_backtrace, .-fastunwind_backtrace\n");

/* The same for the memoizing walk: its three arguments stay, the caller's
 * state goes in the next three. */
__asm__(".text\n"
        ".globl fastunwind_backtrace_memo\n"
        ".hidden fastunwind_backtrace_memo\n"
        ".type fastunwind_backtrace_memo, @function\n"
        ".p2align 4\n"
        "fastunwind_backtrace_memo:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "movq (%rsp), %rcx\n"
        "leaq 8(%rsp), %r8\n"
        "movq %rbp, %r9\n"
        "jmp fastunwind_walk_memo\n"
        ".cfi_endproc\n"
        ".size fastunwind_backtrace_memo, .-fastunwind_backtrace_memo\n");

/* ---- Self-test -------------------------------------------------------- */

static __attribute__((noinline)) int selftest_inner(void **frames,
                                                    void *outer_ra)
{
    int n = fastunwind_backtrace(frames, 4);
    __asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
    return n >= 3 && frames[1] == __builtin_return_address(0) &&
                   frames[2] == outer_ra
               ? 0
               : -1;
}

static __attribute__((noinline)) int selftest_outer(void)
{
    void *frames[4];
    int ok = selftest_inner(frames, __builtin_return_address(0));
    __asm__ volatile("" ::: "memory");
    return ok;
}

int fastunwind_selftest(void)
{
    int ok = selftest_outer();
    __asm__ volatile("" ::: "memory");
    return ok;
}
