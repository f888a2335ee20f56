/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ehframe.h - reading the DWARF call frame information of a loaded
 * module: the .eh_frame_hdr search table, CIEs and FDEs, and the encoded
 * numbers and pointers they are made of.  x86-64 .eh_frame only: 32-bit
 * lengths, pointers absolute or relative to their own place.
 *
 * Every read is bounded: an entry, the CIE its FDE points at and the
 * search table must lie inside the extent the caller gives, and nothing
 * is read past an entry's end, so malformed bytes are refused, never
 * followed out of their extent.  (The unwinder trusts a loaded module's
 * data as the loader does and gives the whole address space.)
 * Nothing allocates, locks or changes errno: it runs inside malloc.
 * GPL-3.0-or-later. */
#ifndef MT_EHFRAME_H
#define MT_EHFRAME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes still to read: [p, end). */
struct eh_cursor {
    const uint8_t *p, *end;
};

/* Each reads one item and moves the cursor past it; false (the cursor
 * then points anywhere inside) when the item does not fit or is invalid
 * (a LEB128 number of more than 64 bits). */
bool eh_u8(struct eh_cursor *c, uint8_t *v);
bool eh_fixed(struct eh_cursor *c, void *v, size_t size);
bool eh_uleb(struct eh_cursor *c, uint64_t *v);
bool eh_sleb(struct eh_cursor *c, int64_t *v);
/* Skips a ULEB128 length and that many bytes; *BLOCK gets their start. */
bool eh_block(struct eh_cursor *c, const uint8_t **block, uint64_t *len);

/* DW_EH_PE_* pointer encodings: the low nibble is the format, bits 4-6
 * the base, bit 7 indirection. */
enum {
    EH_PE_ABSPTR = 0x00,
    EH_PE_ULEB128 = 0x01,
    EH_PE_UDATA2 = 0x02,
    EH_PE_UDATA4 = 0x03,
    EH_PE_UDATA8 = 0x04,
    EH_PE_SLEB128 = 0x09,
    EH_PE_SDATA2 = 0x0a,
    EH_PE_SDATA4 = 0x0b,
    EH_PE_SDATA8 = 0x0c,
    EH_PE_PCREL = 0x10,
    EH_PE_DATAREL = 0x30,
    EH_PE_INDIRECT = 0x80,
    EH_PE_OMIT = 0xff,
};

/* Reads a pointer encoded as ENC: absolute or relative to its own place
 * (all x86-64 .eh_frame uses); false for other bases, which we never need.
 * An indirect pointer is returned undereferenced; EH_PE_OMIT reads
 * nothing and gives 0. */
bool eh_encoded(struct eh_cursor *c, uint8_t enc, uintptr_t *v);

/* Where unwind data may be read: [lo, hi). */
struct eh_extent {
    const uint8_t *lo, *hi;
};

/* The FDE that may cover PC, from the binary search table of the module's
 * .eh_frame_hdr at HDR; NULL if there is none, no table, or the table
 * does not lie in EXT.  The caller still checks the FDE's range. */
const uint8_t *eh_find_fde(const uint8_t *hdr, uintptr_t pc,
                           const struct eh_extent *ext);

struct eh_cie {
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;        /* 'R': how the FDEs' addresses are encoded */
    bool augmented;         /* 'z': FDEs carry augmentation data */
    bool signal;            /* 'S': a signal trampoline */
    struct eh_cursor insns; /* the initial instructions */
};

struct eh_fde {
    uintptr_t pc_begin, pc_end; /* the code it describes: [begin, end) */
    struct eh_cursor insns;
};

/* Parses the CIE at ENTRY (version 1 or 3, return address column 16,
 * augmentation "" or "z..." with R, P, L, S understood).  False when it is
 * not one, is malformed, or does not lie in EXT. */
bool eh_parse_cie(const uint8_t *entry, const struct eh_extent *ext,
                  struct eh_cie *ci);
/* Parses the FDE at ENTRY and the CIE it points at. */
bool eh_parse_fde(const uint8_t *entry, const struct eh_extent *ext,
                  struct eh_cie *ci, struct eh_fde *fd);

#endif
