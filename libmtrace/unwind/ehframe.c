/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ehframe.c - see ehframe.h. */
#include "unwind/ehframe.h"
#include <string.h>

bool eh_u8(struct eh_cursor *c, uint8_t *v)
{
    if (c->p >= c->end)
        return false;
    *v = *c->p++;
    return true;
}

bool eh_fixed(struct eh_cursor *c, void *v, size_t size)
{
    if ((size_t)(c->end - c->p) < size)
        return false;
    memcpy(v, c->p, size);
    c->p += size;
    return true;
}

bool eh_uleb(struct eh_cursor *c, uint64_t *v)
{
    uint64_t x = 0;
    uint8_t byte;
    for (unsigned shift = 0;; shift += 7) {
        if (!eh_u8(c, &byte) || shift >= 64)
            return false;
        x |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
    }
    *v = x;
    return true;
}

bool eh_sleb(struct eh_cursor *c, int64_t *v)
{
    uint64_t x = 0;
    uint8_t byte;
    unsigned shift = 0;
    do {
        if (!eh_u8(c, &byte) || shift >= 64)
            return false;
        x |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40))
        x |= ~0ull << shift;
    *v = (int64_t)x;
    return true;
}

bool eh_block(struct eh_cursor *c, const uint8_t **block, uint64_t *len)
{
    if (!eh_uleb(c, len) || *len > (uint64_t)(c->end - c->p))
        return false;
    *block = c->p;
    c->p += *len;
    return true;
}

/* The fixed-size or LEB128 number of format FORMAT (ENC's low nibble). */
static bool read_format(struct eh_cursor *c, uint8_t format, uint64_t *u)
{
    int64_t s;
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    int16_t s16 = 0;
    int32_t s32 = 0;
    bool ok;
    switch (format) {
    case EH_PE_ABSPTR:
    case EH_PE_UDATA8:
    case EH_PE_SDATA8:
        return eh_fixed(c, u, 8);
    case EH_PE_ULEB128:
        return eh_uleb(c, u);
    case EH_PE_SLEB128:
        ok = eh_sleb(c, &s);
        *u = (uint64_t)s;
        return ok;
    case EH_PE_UDATA2:
        ok = eh_fixed(c, &u16, 2);
        *u = u16;
        return ok;
    case EH_PE_SDATA2:
        ok = eh_fixed(c, &s16, 2);
        *u = (uint64_t)(int64_t)s16;
        return ok;
    case EH_PE_UDATA4:
        ok = eh_fixed(c, &u32, 4);
        *u = u32;
        return ok;
    case EH_PE_SDATA4:
        ok = eh_fixed(c, &s32, 4);
        *u = (uint64_t)(int64_t)s32;
        return ok;
    default:
        return false;
    }
}

bool eh_encoded(struct eh_cursor *c, uint8_t enc, uintptr_t *v)
{
    const uint8_t *at = c->p;
    uint64_t u = 0;
    if (enc == EH_PE_OMIT) {
        *v = 0;
        return true;
    }
    if (!read_format(c, enc & 0x0f, &u))
        return false;
    switch (enc & 0x70) {
    case 0:
        break;
    case EH_PE_PCREL:
        u += (uintptr_t)at;
        break;
    default:
        return false;
    }
    *v = (uintptr_t)u;
    return true;
}

/* Whether [at, at + size) lies in EXT (sizes up to 4 GiB: no overflow). */
static bool inside(const struct eh_extent *ext, const uint8_t *at,
                   uint64_t size)
{
    uintptr_t a = (uintptr_t)at;
    return a >= (uintptr_t)ext->lo && a <= (uintptr_t)ext->hi &&
           size <= (uintptr_t)ext->hi - a;
}

const uint8_t *eh_find_fde(const uint8_t *hdr, uintptr_t pc,
                           const struct eh_extent *ext)
{
    /* Version 1; the table as pairs of 4-byte offsets from HDR. */
    if (!inside(ext, hdr, 4) || hdr[0] != 1 ||
        hdr[3] != (EH_PE_DATAREL | EH_PE_SDATA4))
        return NULL;
    struct eh_cursor c = { hdr + 4, ext->hi };
    if (inside(ext, hdr + 4, 16))
        c.end = hdr + 4 + 16;
    uintptr_t eh_frame, count;
    if (hdr[2] == EH_PE_OMIT || !eh_encoded(&c, hdr[1], &eh_frame) ||
        !eh_encoded(&c, hdr[2], &count) || count == 0 ||
        count > ((uintptr_t)ext->hi - (uintptr_t)c.p) / 8)
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
    return (const uint8_t *)((uintptr_t)hdr + (intptr_t)fde);
}

/* An entry's extent from its 4-byte length; 64-bit DWARF (and the zero
 * terminator) refused. */
static bool entry_extent(const uint8_t *entry, const struct eh_extent *ext,
                         struct eh_cursor *c)
{
    uint32_t len;
    if (!inside(ext, entry, 4))
        return false;
    memcpy(&len, entry, 4);
    if (len == 0 || len >= 0xfffffff0u || !inside(ext, entry + 4, len))
        return false;
    c->p = entry + 4;
    c->end = entry + 4 + len;
    return true;
}

/* The augmentation data of a 'z' CIE: the FDE pointer encoding ('R') and
 * the signal frame mark ('S'); the rest is skipped by its length. */
static bool parse_augmentation(struct eh_cursor *c, const char *aug,
                               struct eh_cie *ci)
{
    const uint8_t *block;
    uint64_t len;
    if (!eh_block(c, &block, &len))
        return false;
    struct eh_cursor data = { block, block + len };
    for (const char *a = aug + 1; *a; a++) {
        uint8_t enc;
        uintptr_t ignored;
        switch (*a) {
        case 'R':
            if (!eh_u8(&data, &ci->fde_enc))
                return false;
            break;
        case 'P':
            if (!eh_u8(&data, &enc) ||
                !eh_encoded(&data, enc & ~EH_PE_INDIRECT, &ignored))
                return false;
            break;
        case 'L':
            if (!eh_u8(&data, &enc))
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

bool eh_parse_cie(const uint8_t *entry, const struct eh_extent *ext,
                  struct eh_cie *ci)
{
    struct eh_cursor c;
    uint32_t id;
    uint8_t version, ra8;
    uint64_t ra;
    if (!entry_extent(entry, ext, &c) || !eh_fixed(&c, &id, 4) || id != 0 ||
        !eh_u8(&c, &version) || (version != 1 && version != 3))
        return false;
    const char *aug = (const char *)c.p;
    const uint8_t *nul = memchr(c.p, 0, (size_t)(c.end - c.p));
    if (nul == NULL || (aug[0] != 0 && aug[0] != 'z'))
        return false;
    c.p = nul + 1;
    *ci = (struct eh_cie){ .fde_enc = EH_PE_ABSPTR,
                           .augmented = aug[0] == 'z' };
    if (!eh_uleb(&c, &ci->code_align) || !eh_sleb(&c, &ci->data_align))
        return false;
    if (version == 1 ? !eh_u8(&c, &ra8) : !eh_uleb(&c, &ra))
        return false;
    if (version == 1)
        ra = ra8;
    if (ra != 16 || (ci->augmented && !parse_augmentation(&c, aug, ci)))
        return false;
    ci->insns = c;
    return true;
}

bool eh_parse_fde(const uint8_t *entry, const struct eh_extent *ext,
                  struct eh_cie *ci, struct eh_fde *fd)
{
    struct eh_cursor c;
    uint32_t cie_off;
    uintptr_t begin, range;
    const uint8_t *aug;
    uint64_t aug_len;
    if (!entry_extent(entry, ext, &c) || !eh_fixed(&c, &cie_off, 4) ||
        cie_off == 0 ||
        !eh_parse_cie((const uint8_t *)((uintptr_t)entry + 4 - cie_off), ext,
                      ci))
        return false;
    if ((ci->fde_enc & EH_PE_INDIRECT) ||
        !eh_encoded(&c, ci->fde_enc, &begin) ||
        !eh_encoded(&c, ci->fde_enc & 0x0f, &range))
        return false;
    if (ci->augmented && !eh_block(&c, &aug, &aug_len))
        return false;
    fd->pc_begin = begin;
    fd->pc_end = begin + range;
    fd->insns = c;
    return true;
}
