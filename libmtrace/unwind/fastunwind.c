/* SPDX-License-Identifier: GPL-3.0-or-later */
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
 * .eh_frame_hdr search table (ehframe.c) and running the CIE and FDE
 * instructions up to that address (cfa.c); it is then kept in a global
 * two-way cache of single 64-bit words, so readers and concurrent writers
 * need no lock and can never see half an entry.  On a cache hit a frame
 * costs two dependent loads: its rule, then the return address.  Walks
 * that start where a recent one did are replayed from a per-thread memo.
 *
 * The code runs inside malloc, perhaps in a signal handler or with the
 * loader lock held: no allocation, no lock, no errno change, and every
 * stack word is read only from a page already known to be readable
 * (stackread.h).  Whatever it cannot describe, it stops at, returning the
 * frames found so far.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "unwind/fastunwind.h"
#include "unwind/fastrules.h"
#include "unwind/stackread.h"
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#if !defined(__x86_64__) || !defined(DLFO_EH_SEGMENT_TYPE)
#error "fastunwind needs x86-64 and glibc 2.35 or later (_dl_find_object)"
#endif

/* Return addresses below this are taken as the end of the stack, as
 * libunwind does. */
#define LOWEST_IP 0x4000

/* The rules and their cache: fastrules.h. */

static unsigned memo_gen;

void fastunwind_flush(void)
{
    fastunwind_rules_flush();
    __atomic_add_fetch(&memo_gen, 1, __ATOMIC_RELEASE); /* memos too */
}

/* ---- The walk --------------------------------------------------------- */

/* The walker's registers in a frame: where it executes, its RSP and RBP. */
struct regs {
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
static enum step_result step(struct regs *f, const struct rule *r,
                             struct bounds *b)
{
    uintptr_t cfa, rbp_at, gregs;
    switch (r->kind) {
    case RULE_STANDARD:
        cfa = (r->cfa_rbp ? f->bp : f->sp) + (uintptr_t)r->cfa_off;
        rbp_at = cfa + (uintptr_t)r->rbp_off;
        if (!frame_sane(f->sp, cfa, rbp_at) || !stack_readable(b, cfa - 8) ||
            (r->rbp_off != 0 && !stack_readable(b, rbp_at)))
            return STEP_BAD_STACK;
        f->ip = stack_load(cfa - 8);
        if (r->rbp_off != 0)
            f->bp = stack_load(rbp_at);
        f->sp = cfa;
        return STEP_OK;
    case RULE_DRAP:
        /* The CFA was pushed a little below the saved RBP, in this frame. */
        cfa = f->bp - (uintptr_t)r->cfa_off;
        if (cfa < f->sp - RED_ZONE || !stack_readable(b, cfa))
            return STEP_BAD_STACK;
        cfa = stack_load(cfa);
        rbp_at = f->bp;
        if (!frame_sane(f->sp, cfa, rbp_at) || !stack_readable(b, cfa - 8) ||
            !stack_readable(b, rbp_at))
            return STEP_BAD_STACK;
        f->ip = stack_load(cfa - 8);
        f->bp = stack_load(rbp_at);
        f->sp = cfa;
        return STEP_OK;
    case RULE_SIGNAL:
        /* The handler returned here with RSP at the kernel's ucontext. */
        gregs = f->sp + offsetof(ucontext_t, uc_mcontext.gregs);
        if (!stack_readable(b, gregs + REG_RIP * 8) ||
            !stack_readable(b, gregs + REG_RSP * 8) ||
            !stack_readable(b, gregs + REG_RBP * 8))
            return STEP_BAD_STACK;
        f->ip = stack_load(gregs + REG_RIP * 8);
        f->sp = stack_load(gregs + REG_RSP * 8);
        f->bp = stack_load(gregs + REG_RBP * 8);
        return STEP_SIGNAL;
    default:
        return STEP_END;
    }
}

/* Everything the walk's inline step leaves: cache misses, signal frames,
 * the last frame, reads beyond the pages known readable. */
static __attribute__((noinline)) enum step_result step_slow(struct regs *f,
                                                            struct bounds *b,
                                                            uintptr_t back)
{
    struct rule r;
    fastunwind_rule_for(f->ip, back, &r);
    return step(f, &r, b);
}

/* What a walk may leave for the memo: where each return address was read
 * (SLOTS[k] for FRAMES[k], k >= 1; SLOTS[n] for a final one below
 * LOWEST_IP), and whether the walk can be replayed from them.
 *
 * Only the RBP values that some CFA was computed from count: most code
 * saves RBP as an ordinary callee-saved register, whose saved value (a
 * pointer of the program's) changes from call to call and steps nothing.
 * A saved RBP read goes in RBP_SLOTS/RBP_VALUES[rbp_loads] on trial and
 * is kept (rbp_loads + 1) only when a CFA is then RBP-based before the
 * next one replaces it; the start's RBP counts (uses_rbp) only when a CFA
 * is RBP-based before the first saved RBP is read.  On cc1plus 53% of
 * the replays that failed on a saved RBP found every return address the
 * same (bench/RESULTS.md). */
enum rbp_source { RBP_START, RBP_TRIAL, RBP_KEPT };

struct walk_trail {
    uintptr_t *slots;
    uintptr_t *rbp_slots, *rbp_values; /* saved RBPs that count, in order */
    int rbp_loads, rbp_room;
    enum rbp_source rbp_now; /* where the walk's current RBP came from */
    bool replayable; /* no slow step, no signal frame: see the memo below */
    bool uses_rbp;   /* some CFA was RBP + offset with the start's RBP */
    bool ended_low;
};

/* The walk computes a CFA from RBP: the RBP it has now counts. */
static inline void trail_rbp_used(struct walk_trail *t)
{
    if (t->rbp_now == RBP_START) {
        t->uses_rbp = true;
    } else if (t->rbp_now == RBP_TRIAL) {
        t->rbp_loads++;
        t->rbp_now = RBP_KEPT;
    }
}

/* The walk read a saved RBP at SLOT: on trial until a CFA uses it. */
static inline void trail_rbp_read(struct walk_trail *t, uintptr_t slot,
                                  uintptr_t value)
{
    if (t->rbp_loads < t->rbp_room) {
        t->rbp_slots[t->rbp_loads] = slot;
        t->rbp_values[t->rbp_loads] = value;
        t->rbp_now = RBP_TRIAL;
    } else {
        t->replayable = false;
    }
}

/* The walk itself.  TRAIL is NULL for plain walks; always inlined, so the
 * plain walk pays nothing for it. */
static inline __attribute__((always_inline)) int
walk(void **frames, int max, uintptr_t ip, uintptr_t sp, uintptr_t bp,
     struct walk_trail *trail, uintptr_t *sps)
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
                trail_rbp_used(trail);
        }
        uintptr_t cfa = base + (w & CFA_OFF_MASK);
        uintptr_t rbp_at = cfa - 8 * ((w >> RBP_SHIFT) & 0xff);
        enum rule_kind kind = (enum rule_kind)((w >> KIND_SHIFT) & KIND_MASK);
        if (__builtin_expect(kind == RULE_STANDARD && back &&
                                 frame_sane(sp, cfa, rbp_at) && rbp_at >= lo &&
                                 cfa <= hi,
                             1)) {
            ip = stack_load(cfa - 8);
            if (trail)
                trail->slots[n] = cfa - 8;
            if (rbp_at != cfa) {
                bp = stack_load(rbp_at);
                if (trail)
                    trail_rbp_read(trail, rbp_at, bp);
            }
            sp = cfa;
        } else if (kind == RULE_STOP && back) {
            break;
        } else {
            if (trail)
                trail->replayable = false;
            struct regs f = { ip, sp, bp };
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
        if (sps)
            sps[n] = sp;
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
    return walk(frames, max, ip, sp, bp, NULL, NULL);
}

__attribute__((used, noinline, visibility("hidden"))) int fastunwind_walk_sps(
    void **frames, uintptr_t *sps, int max, uintptr_t ip, uintptr_t sp,
    uintptr_t bp);

int fastunwind_walk_sps(void **frames, uintptr_t *sps, int max, uintptr_t ip,
                        uintptr_t sp, uintptr_t bp)
{
    return walk(frames, max, ip, sp, bp, NULL, sps);
}

/* ---- The memo ----------------------------------------------------------
 * A program allocates from the same call sites over and over.  A walk
 * made of cached standard rules is a function of where it starts (return
 * address, RSP, and RBP when a CFA is computed from it) and of the words
 * it reads on the way that it uses: each rule depends on the address only,
 * each CFA on the previous one (or on an RBP read before).  So a walk that
 * starts at the same place and finds the same words at the recorded
 * addresses (return addresses, and the saved RBPs some CFA used:
 * walk_trail) is the same walk: checking them is independent loads
 * instead of the walk's dependent ones.  Walks through slow steps (a rule computed, a signal
 * frame, an unusual rule) are not memoized; a flush (dlclose) empties the
 * memo. */

/* 128 walks: a C++ program's allocations come through operator new from
 * more call sites than 16 entries held (bench/wl_cxx: 21 an iteration,
 * 90 distinct walks in all), and with 64 a tenth of its walks were made
 * anew; 128 hold them all, 11% less time on wl_cxx (bench/RESULTS.md,
 * 2026-11-26, fourth session).  The index below finds the entry without
 * scanning them all.  An entry's arrays are sized by the deepest walk
 * asked for (fastunwind_memo_init): about 180 KB of address space a
 * thread for the default 32 frames (plus our own 8), of which only the
 * entries a thread has filled are ever touched. */
#define MEMO_ENTRIES 128
#define MEMO_WORDS (MEMO_ENTRIES / 64) /* by_start's bit words */

/* What the search for a walk looks at first, kept apart from the entries:
 * the search reads these few cache lines instead of several lines of every
 * entry.  Walks from one call site at one RSP share their first frames and
 * often their last (main and its callers): a middle frame tells most of
 * the others apart with one load. */
struct memo_key {
    uintptr_t ip, sp;           /* the walk's start; ip 0: empty */
    uintptr_t top;              /* the highest word the walk read, 0: none */
    uintptr_t mid_slot, mid_ra; /* a middle frame: slot 0: none */
    uintptr_t near_slot, near_ra; /* frame NEAR_FRAME: slot 0: none */
};

/* Walks from one start that the middle frame does not tell apart mostly
 * part within their first frames, past the allocator's wrappers: on
 * cc1plus 82% of the replays tried failed, at the third frame on average
 * (bench/RESULTS.md).  The key checks that frame too, so a candidate that
 * fails there costs a load of a word the walk reads anyway rather than the
 * entry's arrays. */
#define NEAR_FRAME 3

struct memo_entry {
    uintptr_t bp; /* the walk's start, with its key's ip, sp */
    unsigned gen; /* flush generation it was made in */
    int max, n, rbp_loads;
    bool uses_rbp;  /* bp is part of the start */
    bool ended_low; /* stopped at a return address < LOWEST_IP */
    /* In the memo's pool, sized by its walks' depth (fastunwind_memo_init):
     * DEPTH + 1 slots, DEPTH of each of the others. */
    uintptr_t *slots;
    uintptr_t *rbp_slots, *rbp_values;
    void **frames;
    void *user; /* the caller's, for this walk's frames */
};

/* Where to look first.  Walks from one start (ip, sp) often share their
 * first frames and differ in the middle, where their keys' middle frame
 * tells them apart: so the memo remembers, by start, how far above sp the
 * middle slot of the last walk from there was (PROBES), and, by start and
 * the word in that slot, which entry holds the walk (INDEX, entry + 1).
 * Only a guess: the entry is checked as in the scan, which follows when
 * the guess fails.  On bench/wl: 4.6% fewer instructions an event on
 * `single`, 8.8% on `cxx` (bench/RESULTS.md, 2026-11-25). */
#define MEMO_PROBES 64
#define MEMO_INDEX 256

struct fastunwind_memo {
    struct memo_key key[MEMO_ENTRIES];
    struct memo_entry entry[MEMO_ENTRIES];
    unsigned next;           /* the entry a new walk replaces (round robin) */
    struct memo_entry *last; /* the last walk's entry, NULL: not memoized */
    uint32_t probe[MEMO_PROBES];     /* middle slot - sp, by start */
    uint64_t by_start[MEMO_PROBES][MEMO_WORDS]; /* entries by start bucket,
                                                    a bit each */
    unsigned char index[MEMO_INDEX]; /* entry + 1, 0: none */
    int depth;                       /* the deepest walk memoized */
    uintptr_t pool[];                /* the entries' arrays */
};
_Static_assert(MEMO_ENTRIES % 64 == 0, "by_start holds a bit an entry");
_Static_assert(MEMO_ENTRIES < 256, "index holds entry + 1 in a byte");

/* Words of the pool an entry takes: its arrays. */
static size_t entry_words(int depth)
{
    return 4 * (size_t)depth + 1;
}

size_t fastunwind_memo_size(int depth)
{
    return sizeof(struct fastunwind_memo) +
           MEMO_ENTRIES * entry_words(depth) * sizeof(uintptr_t);
}

void fastunwind_memo_init(struct fastunwind_memo *m, int depth)
{
    m->depth = depth;
    for (int i = 0; i < MEMO_ENTRIES; i++) {
        struct memo_entry *e = &m->entry[i];
        e->slots = m->pool + (size_t)i * entry_words(depth);
        e->frames = (void **)(e->slots + depth + 1);
        e->rbp_slots = e->slots + 2 * depth + 1;
        e->rbp_values = e->slots + 3 * depth + 1;
    }
}

void **fastunwind_memo_user(struct fastunwind_memo *m)
{
    return m && m->last ? &m->last->user : NULL;
}


/* Whether key K may be this walk: same start, every word it read on pages
 * known readable (the reads all lie between SP and the top one), and the
 * same middle and near frames. */
static inline __attribute__((always_inline)) bool
memo_candidate(const struct memo_key *k, uintptr_t ip, uintptr_t sp,
               const struct bounds *b)
{
    return k->ip == ip && k->sp == sp && k->top <= b->hi - 8 &&
           (k->mid_slot == 0 || stack_load(k->mid_slot) == k->mid_ra) &&
           (k->near_slot == 0 || stack_load(k->near_slot) == k->near_ra);
}

/* Whether candidate E is this walk: its frame count, or 0.
 * B: the pages known readable from SP; GEN: the current flush generation
 * (both the same for every entry, so the caller reads them once). */
static inline __attribute__((always_inline)) int
memo_replay(const struct memo_entry *e, int max, uintptr_t bp,
            const struct bounds *b, unsigned gen)
{
    if (e->max != max || (e->uses_rbp && e->bp != bp) || e->gen != gen)
        return 0;
    for (int k = 0; k < e->rbp_loads; k++)
        if (e->rbp_slots[k] < b->lo || e->rbp_slots[k] > b->hi - 8 ||
            stack_load(e->rbp_slots[k]) != e->rbp_values[k])
            return 0;
    /* Four return addresses a test: the loads are independent, and most
     * replays tried hold (1.41 tried a walk on sqlite3), so the words are
     * best all read.  On sqlite3's ~20 frames the loop's instructions fell
     * from 5.3 a frame to 2.3 (bench/RESULTS.md, 2026-11-27, twelfth
     * session). */
    const uintptr_t *slot = e->slots, *want = (const uintptr_t *)e->frames;
    int k = 1;
    for (; k + 4 <= e->n; k += 4)
        if (((stack_load(slot[k]) ^ want[k]) |
             (stack_load(slot[k + 1]) ^ want[k + 1]) |
             (stack_load(slot[k + 2]) ^ want[k + 2]) |
             (stack_load(slot[k + 3]) ^ want[k + 3])) != 0)
            return 0;
    for (; k < e->n; k++)
        if (stack_load(slot[k]) != want[k])
            return 0;
    if (e->ended_low && stack_load(e->slots[e->n]) >= LOWEST_IP)
        return 0;
    return e->n;
}

#define GOLDEN 0x9e3779b97f4a7c15ull

static uint64_t start_hash(uintptr_t ip, uintptr_t sp)
{
    return ((ip * GOLDEN) ^ sp) * GOLDEN;
}

static unsigned probe_of(uintptr_t ip, uintptr_t sp)
{
    return (unsigned)(start_hash(ip, sp) >> 58) & (MEMO_PROBES - 1);
}

static unsigned index_of(uintptr_t ip, uintptr_t sp, uintptr_t mid_ra)
{
    return (unsigned)(((start_hash(ip, sp) ^ mid_ra) * GOLDEN) >> 56) &
           (MEMO_INDEX - 1);
}

/* Entry I is where the next walk from its start should look first. */
static void memo_remember(struct fastunwind_memo *memo, int i)
{
    const struct memo_key *k = &memo->key[i];
    if (k->mid_slot == 0)
        return;
    memo->probe[probe_of(k->ip, k->sp)] = (uint32_t)(k->mid_slot - k->sp);
    memo->index[index_of(k->ip, k->sp, k->mid_ra)] = (unsigned char)(i + 1);
}

/* The entry the index names for this walk, or -1.  The middle slot is
 * read only where the walk may read (between SP and the known top). */
static int memo_guess(const struct fastunwind_memo *memo, uintptr_t ip,
                      uintptr_t sp, const struct bounds *b)
{
    uintptr_t slot = sp + memo->probe[probe_of(ip, sp)];
    if (slot > b->hi - 8)
        return -1;
    return memo->index[index_of(ip, sp, stack_load(slot))] - 1;
}

/* Fetches the keys of the first KEYS_AHEAD entries in BUCKET. */
#define KEYS_AHEAD 8
static inline void prefetch_keys(const struct fastunwind_memo *memo,
                                 const uint64_t *bucket)
{
    int left = KEYS_AHEAD;
    for (int w = 0; w < MEMO_WORDS; w++)
        for (uint64_t bits = bucket[w]; bits && left; bits &= bits - 1, left--)
            __builtin_prefetch(&memo->key[w * 64 + __builtin_ctzll(bits)]);
}

/* Candidate I if it holds this walk: its frame count, else 0. */
static inline __attribute__((always_inline)) int
memo_try(struct fastunwind_memo *memo, int i, void **frames, int max,
         uintptr_t bp, const struct bounds *b, unsigned gen)
{
    struct memo_entry *hit = &memo->entry[i];
    int n = memo_replay(hit, max, bp, b, gen);
    if (n == 0)
        return 0;
    memo->last = hit;
    if (hit->user)
        return FASTUNWIND_KNOWN; /* no need for the frames */
    memcpy(frames, hit->frames, (size_t)n * sizeof *frames);
    return n;
}

__attribute__((used, noinline, visibility("hidden"))) int fastunwind_walk_memo(
    void **frames, int max, struct fastunwind_memo *memo, uintptr_t ip,
    uintptr_t sp, uintptr_t bp);

int fastunwind_walk_memo(void **frames, int max, struct fastunwind_memo *memo,
                         uintptr_t ip, uintptr_t sp, uintptr_t bp)
{
    if (memo == NULL)
        return walk(frames, max, ip, sp, bp, NULL, NULL);
    const struct memo_entry *prev = memo->last;
    memo->last = NULL;
    if (max > memo->depth)
        return walk(frames, max, ip, sp, bp, NULL, NULL);
    /* The index's guess first; failing that, any entry may hold this walk:
     * calls from many places start at the same RSP, and a mismatch shows
     * at the first return address that differs. */
    struct bounds b;
    bounds_start(&b, sp);
    unsigned gen = __atomic_load_n(&memo_gen, __ATOMIC_ACQUIRE);
    int guess = memo_guess(memo, ip, sp, &b);
    if (guess >= 0 && memo_candidate(&memo->key[guess], ip, sp, &b)) {
        int n = memo_try(memo, guess, frames, max, bp, &b, gen);
        if (n)
            return n;
    }
    /* Only the entries whose start falls in this walk's bucket.  The first
     * few keys are fetched at once: between two walks the program has
     * often pushed them out of the cache, and checked one after the other
     * each would be a miss of its own. */
    const uint64_t *bucket = memo->by_start[probe_of(ip, sp)];
    prefetch_keys(memo, bucket);
    for (int w = 0; w < MEMO_WORDS; w++) {
        uint64_t others = bucket[w];
        if (guess >= 0 && guess / 64 == w)
            others &= ~(1ull << (guess % 64));
        for (; others; others &= others - 1) {
            int i = w * 64 + __builtin_ctzll(others);
            if (!memo_candidate(&memo->key[i], ip, sp, &b))
                continue;
            int n = memo_try(memo, i, frames, max, bp, &b, gen);
            if (n) {
                memo_remember(memo, i);
                return n;
            }
        }
    }
    /* A fresh walk: the rules of a walk much like it (the index's guess,
     * else the thread's last walk) are fetched ahead, so that the walk's
     * dependent loads of the rule cache find them in the cache. */
    const struct memo_entry *like = guess >= 0 ? &memo->entry[guess] : prev;
    if (like)
        for (int k = 1; k < like->n; k++)
            __builtin_prefetch(cache_set((uintptr_t)like->frames[k]));
    unsigned slot = memo->next++ % MEMO_ENTRIES;
    struct memo_key *key = &memo->key[slot];
    struct memo_entry *e = &memo->entry[slot];
    int n;
    struct walk_trail trail = {
        .slots = e->slots,
        .rbp_slots = e->rbp_slots,
        .rbp_values = e->rbp_values,
        .rbp_room = memo->depth,
        .rbp_now = RBP_START,
        .replayable = true,
    };
    if (key->ip)
        memo->by_start[probe_of(key->ip, key->sp)][slot / 64] &=
            ~(1ull << (slot % 64));
    key->ip = 0; /* a signal handler's walk must not replay a half entry */
    n = walk(frames, max, ip, sp, bp, &trail, NULL);
    if (!trail.replayable || n < 1)
        return n;
    memcpy(e->frames, frames, (size_t)n * sizeof *frames);
    e->bp = bp;
    e->uses_rbp = trail.uses_rbp;
    e->rbp_loads = trail.rbp_loads; /* those that count (walk_trail) */
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
    int near = n - 1 < NEAR_FRAME ? n - 1 : NEAR_FRAME;
    key->near_slot = near >= 1 ? e->slots[near] : 0;
    key->near_ra = near >= 1 ? (uintptr_t)e->frames[near] : 0;
    __atomic_store_n(&key->ip, ip, __ATOMIC_RELEASE);
    memo->by_start[probe_of(ip, sp)][slot / 64] |= 1ull << (slot % 64);
    memo->last = e;
    memo_remember(memo, (int)slot);
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

#ifdef __CET__
#define ENTRY_ENDBR "endbr64\n"
#else
#define ENTRY_ENDBR ""
#endif
/* An entry point whose three arguments stay, the caller's state going in
 * the next three (return address, RSP after the return, RBP), then a
 * tail call to BODY. */
#define ENTRY_WITH_STATE(name, body)                                           \
    __asm__(".text\n"                                                          \
            ".globl " #name "\n"                                               \
            ".hidden " #name "\n"                                              \
            ".type " #name ", @function\n"                                     \
            ".p2align 4\n" #name ":\n"                                         \
            ".cfi_startproc\n" ENTRY_ENDBR "movq (%rsp), %rcx\n"               \
            "leaq 8(%rsp), %r8\n"                                              \
            "movq %rbp, %r9\n"                                                 \
            "jmp " #body "\n"                                                  \
            ".cfi_endproc\n"                                                   \
            ".size " #name ", .-" #name "\n")

/* The walk with stack pointers. */
ENTRY_WITH_STATE(fastunwind_backtrace_sps, fastunwind_walk_sps);

/* The memoizing walk. */
ENTRY_WITH_STATE(fastunwind_backtrace_memo, fastunwind_walk_memo);

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
