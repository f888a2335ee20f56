/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ehbytes.h - building .eh_frame bytes by hand for the ehframe and cfa
 * suites: LEB128 numbers, CIEs and FDEs, and a copy of them placed right
 * before an unreadable page, so that any read past their end crashes the
 * test instead of passing unnoticed. */
#ifndef EHBYTES_H
#define EHBYTES_H
#include "unit.h"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct eb {
    uint8_t b[1024];
    size_t n;
};

static inline void eb_u8(struct eb *e, uint8_t v)
{
    ck_assert_uint_lt(e->n, sizeof e->b);
    e->b[e->n++] = v;
}

static inline void eb_bytes(struct eb *e, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        eb_u8(e, ((const uint8_t *)p)[i]);
}

static inline void eb_u32(struct eb *e, uint32_t v)
{
    eb_bytes(e, &v, 4);
}

static inline void eb_uleb(struct eb *e, uint64_t v)
{
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        eb_u8(e, byte | (v ? 0x80 : 0));
    } while (v);
}

static inline void eb_sleb(struct eb *e, int64_t v)
{
    for (;;) {
        uint8_t byte = v & 0x7f;
        v >>= 7; /* arithmetic shift */
        int done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
        eb_u8(e, byte | (done ? 0 : 0x80));
        if (done)
            return;
    }
}

/* Patches the 4-byte length of the entry that starts at AT to end here. */
static inline void eb_end_entry(struct eb *e, size_t at)
{
    uint32_t len = (uint32_t)(e->n - at - 4);
    memcpy(e->b + at, &len, 4);
}

/* A CIE: version 1 (return address column as one byte) or 3 (ULEB128).
 * AUG_DATA is written after its ULEB128 length when AUG starts with 'z'.
 * Returns the CIE's offset in E. */
static inline size_t eb_cie(struct eb *e, uint8_t version, const char *aug,
                            uint64_t code_align, int64_t data_align,
                            uint64_t ra, const void *aug_data, size_t aug_len,
                            const void *insns, size_t insns_len)
{
    size_t at = e->n;
    eb_u32(e, 0); /* length, patched below */
    eb_u32(e, 0); /* CIE id */
    eb_u8(e, version);
    eb_bytes(e, aug, strlen(aug) + 1);
    eb_uleb(e, code_align);
    eb_sleb(e, data_align);
    if (version == 1)
        eb_u8(e, (uint8_t)ra);
    else
        eb_uleb(e, ra);
    if (aug[0] == 'z') {
        eb_uleb(e, aug_len);
        eb_bytes(e, aug_data, aug_len);
    }
    eb_bytes(e, insns, insns_len);
    eb_end_entry(e, at);
    return at;
}

/* The usual x86-64 CIE of GCC: "zR", code 1, data -8, return address 16,
 * FDE addresses pcrel|sdata4; CFA = RSP + 8, return address at CFA - 8. */
static inline size_t eb_gcc_cie(struct eb *e)
{
    static const uint8_t enc = 0x1b;
    static const uint8_t insns[] = { 0x0c, 0x07, 0x08, 0x90, 0x01 };
    return eb_cie(e, 1, "zR", 1, -8, 16, &enc, 1, insns, sizeof insns);
}

/* An FDE for the CIE at CIE (in E) with absolute 8-byte addresses (the
 * CIE's encoding must be absptr) and no augmentation data, or with
 * AUGMENTED: an empty augmentation block.  Returns its offset. */
static inline size_t eb_fde_abs(struct eb *e, size_t cie, uint64_t begin,
                                uint64_t range, int augmented,
                                const void *insns, size_t insns_len)
{
    size_t at = e->n;
    eb_u32(e, 0);
    eb_u32(e, (uint32_t)(at + 4 - cie));
    eb_bytes(e, &begin, 8);
    eb_bytes(e, &range, 8);
    if (augmented)
        eb_uleb(e, 0);
    eb_bytes(e, insns, insns_len);
    eb_end_entry(e, at);
    return at;
}

/* N bytes copied to the end of a readable page followed by an unreadable
 * one.  Freed with eb_unplace. */
static inline uint8_t *eb_place(const void *bytes, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    ck_assert_uint_le(n, page);
    uint8_t *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(mprotect(map + page, page, PROT_NONE), 0);
    uint8_t *at = map + page - n;
    memcpy(at, bytes, n);
    return at;
}

static inline void eb_unplace(uint8_t *at, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap(at + n - page, 2 * page);
}

#endif
