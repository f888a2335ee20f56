/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fastrules.c - fastunwind's rules: the rule for a code address, worked
 * out once from its FDE (found through glibc's lock-free _dl_find_object
 * and the module's .eh_frame_hdr, ehframe.c) by running the CIE and FDE
 * instructions up to that address (cfa.c), then kept in the global cache
 * of packed words that the walk (fastunwind.c) reads inline.  The same
 * rules as fastunwind.c: no allocation, no lock, no errno change.
 * GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "unwind/fastrules.h"
#include "unwind/cfa.h"
#include "unwind/ehframe.h"
#include "unwind/fastunwind.h"
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

uint64_t fastunwind_rule_cache[CACHE_SIZE] __attribute__((aligned(64)));

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

void fastunwind_rules_flush(void)
{
    for (uint32_t i = 0; i < CACHE_SIZE; i++)
        __atomic_store_n(&fastunwind_rule_cache[i], 0, __ATOMIC_RELAXED);
}

/* ---- From an address to its rule -------------------------------------- */

/* glibc's __restore_rt: mov $SYS_rt_sigreturn, %rax; syscall. */
static const uint8_t restore_rt_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                           0x00, 0x00, 0x0f, 0x05 };

/* A signal trampoline's FDE starts one byte before the code (so that the
 * lookup at return address - 1 finds it): the code is at PC or PC + 1. */
static bool is_restore_rt(const struct eh_fde *fd, uintptr_t pc)
{
    for (uintptr_t at = pc; at <= pc + 1; at++)
        if (at >= fd->pc_begin && at + sizeof restore_rt_code <= fd->pc_end &&
            memcmp((const void *)at, restore_rt_code, sizeof restore_rt_code) ==
                0)
            return true;
    return false;
}

static void rule_from_row(const struct cfa_row *row, struct rule *r)
{
    r->kind = RULE_STOP;
    /* An undefined return address marks the outermost frame (_start,
     * clone); anything but CFA-8 is beyond the compact rule. */
    if (row->cfa == CFA_OTHER || row->ra.how != CFA_REG_AT_CFA ||
        row->ra.off != -8)
        return;
    if (row->cfa == CFA_DRAP) {
        if (row->rbp.how == CFA_REG_AT_RBP) {
            r->kind = RULE_DRAP;
            r->cfa_off = row->cfa_off;
        }
        return;
    }
    if (row->rbp.how == CFA_REG_AT_CFA) {
        if (row->rbp.off >= 0)
            return;
        r->rbp_off = row->rbp.off;
    } else if (row->rbp.how != CFA_REG_SAME &&
               row->rbp.how != CFA_REG_UNDEFINED) {
        return;
    }
    r->kind = RULE_STANDARD;
    r->cfa_rbp = row->cfa == CFA_RBP;
    r->cfa_off = row->cfa_off;
}

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

/* The FDE (and its CIE) of code address PC: 1; 0 when PC has none; -1
 * when PC is in no loaded object. */
static int fde_of(uintptr_t pc, struct eh_cie *ci, struct eh_fde *fd)
{
    struct dl_find_object obj;
    if (_dl_find_object((void *)pc, &obj) != 0)
        return -1;
    /* A loaded module's unwind data is trusted, as the loader and libgcc
     * trust it: no extent narrower than the address space is known here
     * (dlfo_map_start/end may cover only the text of the main program). */
    static const struct eh_extent ext = { NULL, (const uint8_t *)UINTPTR_MAX };
    const uint8_t *entry = obj.dlfo_eh_frame
                               ? eh_find_fde(obj.dlfo_eh_frame, pc, &ext)
                               : NULL;
    return entry != NULL && eh_parse_fde(entry, &ext, ci, fd) &&
           pc >= fd->pc_begin && pc < fd->pc_end;
}

int fastunwind_function_start(uintptr_t pc, uintptr_t *start)
{
    struct eh_cie ci;
    struct eh_fde fd;
    if (fde_of(pc, &ci, &fd) != 1)
        return 0;
    *start = fd.pc_begin;
    return 1;
}

/* Works out the rule for code address PC; false when PC is in no loaded
 * object (a rule worth caching is only found in one).  *NO_INFO: PC has
 * no FDE. */
static bool compute_rule(uintptr_t pc, struct rule *r, bool *no_info)
{
    struct eh_cie ci;
    struct eh_fde fd;
    struct cfa_row row;
    *r = (struct rule){ .kind = RULE_STOP };
    *no_info = true;
    int found = fde_of(pc, &ci, &fd);
    if (found < 0)
        return false;
    if (found == 0)
        return true;
    *no_info = false;
    if (ci.signal) {
        if (is_restore_rt(&fd, pc))
            r->kind = RULE_SIGNAL;
        return true;
    }
    if (cfa_row_at(&ci, &fd, pc, &row))
        rule_from_row(&row, r);
    return true;
}

void fastunwind_rule_for(uintptr_t ip, uintptr_t back, struct rule *r)
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
