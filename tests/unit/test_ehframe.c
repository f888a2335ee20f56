/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_ehframe.c - ehframe.h on hand-made bytes: LEB128 numbers, pointer
 * encodings, CIEs and FDEs with their augmentations, the .eh_frame_hdr
 * search table, and malformed input that must be refused without reading
 * past its extent (the bytes sit right before an unreadable page).
 */
#include "ehbytes.h"
#include "unwind/ehframe.h"

/* The whole of [P, P + N) as a cursor and as an extent. */
static struct eh_cursor cursor_of(const uint8_t *p, size_t n)
{
    return (struct eh_cursor){ p, p + n };
}

static struct eh_extent extent_of(const uint8_t *p, size_t n)
{
    return (struct eh_extent){ p, p + n };
}

/* ---- numbers ------------------------------------------------------------ */

START_TEST(leb128_values)
{
    static const struct {
        uint8_t bytes[12];
        size_t n;
        uint64_t u;
        int64_t s;
    } cases[] = {
        { { 0x00 }, 1, 0, 0 },
        { { 0x02 }, 1, 2, 2 },
        { { 0x3f }, 1, 63, 63 },
        { { 0x40 }, 1, 64, -64 },
        { { 0x7f }, 1, 127, -1 },
        { { 0x80, 0x01 }, 2, 128, 128 },
        { { 0x80, 0x7f }, 2, 0x3f80, -128 },
        { { 0xe5, 0x8e, 0x26 }, 3, 624485, 624485 },
        { { 0xc0, 0xbb, 0x78 }, 3, 0x1e1dc0, -123456 },
        { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
          10,
          UINT64_MAX,
          -1 },
        { { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f },
          10,
          0x8000000000000000ull,
          INT64_MIN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *p = eb_place(cases[i].bytes, cases[i].n);
        struct eh_cursor c = cursor_of(p, cases[i].n);
        uint64_t u;
        int64_t s;
        ck_assert_msg(eh_uleb(&c, &u), "case %zu: uleb refused", i);
        ck_assert_ptr_eq(c.p, p + cases[i].n);
        c = cursor_of(p, cases[i].n);
        ck_assert_msg(eh_sleb(&c, &s), "case %zu: sleb refused", i);
        ck_assert_ptr_eq(c.p, p + cases[i].n);
        ck_assert_msg(u == cases[i].u, "case %zu: uleb %#llx", i,
                      (unsigned long long)u);
        ck_assert_msg(s == cases[i].s, "case %zu: sleb %lld", i, (long long)s);
        eb_unplace(p, cases[i].n);
    }
}
END_TEST

START_TEST(leb128_malformed)
{
    /* Cut short: the last byte says more follows. */
    static const uint8_t cut[] = { 0x80, 0x80 };
    /* Eleven bytes: more than 64 bits. */
    static const uint8_t long_[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                     0x80, 0x80, 0x80, 0x80, 0x01 };
    const struct {
        const uint8_t *b;
        size_t n;
    } bad[] = { { cut, sizeof cut }, { long_, sizeof long_ }, { cut, 0 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *p = eb_place(bad[i].b, bad[i].n);
        struct eh_cursor c = cursor_of(p, bad[i].n);
        uint64_t u;
        int64_t s;
        ck_assert_msg(!eh_uleb(&c, &u), "case %zu: uleb accepted", i);
        c = cursor_of(p, bad[i].n);
        ck_assert_msg(!eh_sleb(&c, &s), "case %zu: sleb accepted", i);
        eb_unplace(p, bad[i].n);
    }
}
END_TEST

START_TEST(fixed_and_blocks)
{
    static const uint8_t bytes[] = { 0x03, 0xaa, 0xbb, 0xcc, 0x05, 0x11 };
    uint8_t *p = eb_place(bytes, sizeof bytes);
    struct eh_cursor c = cursor_of(p, sizeof bytes);
    const uint8_t *block;
    uint64_t len;
    ck_assert(eh_block(&c, &block, &len));
    ck_assert_uint_eq(len, 3);
    ck_assert_ptr_eq(block, p + 1);
    ck_assert_ptr_eq(c.p, p + 4);
    /* A block longer than what is left. */
    ck_assert(!eh_block(&c, &block, &len));
    uint32_t u32;
    c = cursor_of(p + 4, 2);
    ck_assert(!eh_fixed(&c, &u32, 4));
    uint8_t u8;
    ck_assert(eh_u8(&c, &u8) && u8 == 0x05);
    ck_assert(eh_u8(&c, &u8) && u8 == 0x11);
    ck_assert(!eh_u8(&c, &u8));
    eb_unplace(p, sizeof bytes);
}
END_TEST

/* ---- pointer encodings --------------------------------------------------- */

/* Reads BYTES (N of them) as ENC; *V, and whether it was accepted; the
 * whole input must have been read when it was. */
static bool read_encoded(const void *bytes, size_t n, uint8_t enc, uintptr_t *v,
                         const uint8_t **at)
{
    uint8_t *p = eb_place(bytes, n);
    struct eh_cursor c = cursor_of(p, n);
    bool ok = eh_encoded(&c, enc, v);
    if (ok && enc != EH_PE_OMIT)
        ck_assert_msg(c.p == p + n, "enc %#x: read %td of %zu bytes", enc,
                      c.p - p, n);
    if (at)
        *at = p;
    eb_unplace(p, n);
    return ok;
}

START_TEST(pointer_formats)
{
    uint64_t u64 = 0x123456789abcdef0ull;
    int64_t s64 = -5;
    uint32_t u32 = 0xfedcba98u;
    int32_t s32 = -0x1000;
    uint16_t u16 = 0xbeef;
    int16_t s16 = -2;
    static const uint8_t uleb[] = { 0xe5, 0x8e, 0x26 };
    static const uint8_t sleb[] = { 0xc0, 0xbb, 0x78 };
    uintptr_t v;
    ck_assert(read_encoded(&u64, 8, EH_PE_ABSPTR, &v, NULL) && v == u64);
    ck_assert(read_encoded(&u64, 8, EH_PE_UDATA8, &v, NULL) && v == u64);
    ck_assert(read_encoded(&s64, 8, EH_PE_SDATA8, &v, NULL) &&
              v == (uintptr_t)-5);
    ck_assert(read_encoded(&u32, 4, EH_PE_UDATA4, &v, NULL) && v == u32);
    ck_assert(read_encoded(&s32, 4, EH_PE_SDATA4, &v, NULL) &&
              v == (uintptr_t)-0x1000);
    ck_assert(read_encoded(&u16, 2, EH_PE_UDATA2, &v, NULL) && v == 0xbeef);
    ck_assert(read_encoded(&s16, 2, EH_PE_SDATA2, &v, NULL) &&
              v == (uintptr_t)-2);
    ck_assert(read_encoded(uleb, 3, EH_PE_ULEB128, &v, NULL) && v == 624485);
    ck_assert(read_encoded(sleb, 3, EH_PE_SLEB128, &v, NULL) &&
              v == (uintptr_t)-123456);
}
END_TEST

START_TEST(pointer_bases)
{
    /* -0x40 as sdata4, then zeros: the cut-short cases read up to 7 bytes */
    int32_t s32[2] = { -0x40, 0 };
    const uint8_t *at;
    uintptr_t v;
    /* pcrel: relative to where the pointer itself is. */
    ck_assert(read_encoded(s32, 4, EH_PE_PCREL | EH_PE_SDATA4, &v, &at));
    ck_assert(v == (uintptr_t)at - 0x40);
    /* Indirect is returned undereferenced (the caller decides). */
    ck_assert(read_encoded(s32, 4, EH_PE_INDIRECT | EH_PE_SDATA4, &v, NULL));
    ck_assert(v == (uintptr_t)-0x40);
    /* Omitted: nothing read, 0. */
    ck_assert(read_encoded(s32, 0, EH_PE_OMIT, &v, NULL) && v == 0);
    /* Bases we never need (datarel, textrel, funcrel, aligned): refused. */
    static const uint8_t bases[] = { 0x20, 0x30, 0x40, 0x50 };
    for (size_t i = 0; i < sizeof bases; i++)
        ck_assert_msg(!read_encoded(s32, 4, bases[i] | EH_PE_SDATA4, &v, NULL),
                      "base %#x accepted", bases[i]);
    /* Formats that do not exist, and a cut-short value. */
    ck_assert(!read_encoded(s32, 4, 0x05, &v, NULL));
    ck_assert(!read_encoded(s32, 4, 0x0d, &v, NULL));
    ck_assert(!read_encoded(s32, 3, EH_PE_UDATA4, &v, NULL));
    ck_assert(!read_encoded(s32, 7, EH_PE_UDATA8, &v, NULL));
}
END_TEST

/* ---- CIEs and FDEs -------------------------------------------------------- */

static const uint8_t some_insns[] = { 0x0c, 0x07, 0x08, 0x90, 0x01 };

START_TEST(cie_gcc)
{
    struct eb e = { .n = 0 };
    eb_gcc_cie(&e);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = extent_of(p, e.n);
    struct eh_cie ci;
    ck_assert(eh_parse_cie(p, &ext, &ci));
    ck_assert_uint_eq(ci.code_align, 1);
    ck_assert_int_eq(ci.data_align, -8);
    ck_assert_uint_eq(ci.fde_enc, EH_PE_PCREL | EH_PE_SDATA4);
    ck_assert(ci.augmented && !ci.signal);
    ck_assert_uint_eq(ci.insns.end - ci.insns.p, 5);
    ck_assert(memcmp(ci.insns.p, some_insns, 5) == 0);
    ck_assert_ptr_eq(ci.insns.end, p + e.n);
    eb_unplace(p, e.n);
}
END_TEST

START_TEST(cie_versions_and_augmentations)
{
    /* Version 3 (return column as ULEB128), no augmentation at all: FDE
     * addresses are then absolute. */
    struct eb e = { .n = 0 };
    eb_cie(&e, 3, "", 4, -4, 16, NULL, 0, some_insns, sizeof some_insns);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = extent_of(p, e.n);
    struct eh_cie ci;
    ck_assert(eh_parse_cie(p, &ext, &ci));
    ck_assert_uint_eq(ci.code_align, 4);
    ck_assert_int_eq(ci.data_align, -4);
    ck_assert_uint_eq(ci.fde_enc, EH_PE_ABSPTR);
    ck_assert(!ci.augmented && !ci.signal);
    ck_assert_uint_eq(ci.insns.end - ci.insns.p, sizeof some_insns);
    eb_unplace(p, e.n);

    /* "zPLRS": a personality (indirect pcrel sdata4), an LSDA encoding,
     * the FDE encoding, and the signal frame mark. */
    static const uint8_t plrs[] = { 0x9b, 0x10, 0x00, 0x00, 0x00, 0x1b, 0x03 };
    e.n = 0;
    eb_cie(&e, 1, "zPLRS", 1, -8, 16, plrs, sizeof plrs, some_insns,
           sizeof some_insns);
    p = eb_place(e.b, e.n);
    ext = extent_of(p, e.n);
    ck_assert(eh_parse_cie(p, &ext, &ci));
    ck_assert_uint_eq(ci.fde_enc, EH_PE_UDATA4);
    ck_assert(ci.augmented && ci.signal);
    ck_assert(memcmp(ci.insns.p, some_insns, sizeof some_insns) == 0);
    eb_unplace(p, e.n);

    /* An augmentation we do not know comes last: its data is skipped by
     * the length, and what we know before it still counts. */
    static const uint8_t rx[] = { 0x03, 0xde, 0xad };
    e.n = 0;
    eb_cie(&e, 1, "zRX", 1, -8, 16, rx, sizeof rx, some_insns,
           sizeof some_insns);
    p = eb_place(e.b, e.n);
    ext = extent_of(p, e.n);
    ck_assert(eh_parse_cie(p, &ext, &ci));
    ck_assert_uint_eq(ci.fde_enc, EH_PE_UDATA4);
    ck_assert(memcmp(ci.insns.p, some_insns, sizeof some_insns) == 0);
    eb_unplace(p, e.n);
}
END_TEST

/* Parses the entry built in E (at offset AT) placed before a guard page
 * with an extent of exactly its bytes: must be refused. */
static void refuse_cie(const struct eb *e, const char *why)
{
    uint8_t *p = eb_place(e->b, e->n);
    struct eh_extent ext = extent_of(p, e->n);
    struct eh_cie ci;
    ck_assert_msg(!eh_parse_cie(p, &ext, &ci), "accepted: %s", why);
    eb_unplace(p, e->n);
}

START_TEST(cie_malformed)
{
    struct eb e = { .n = 0 };
    uint8_t enc = 0x1b;
    eb_cie(&e, 2, "zR", 1, -8, 16, &enc, 1, NULL, 0);
    refuse_cie(&e, "version 2");
    e.n = 0;
    eb_cie(&e, 1, "zR", 1, -8, 15, &enc, 1, NULL, 0);
    refuse_cie(&e, "return address in column 15");
    e.n = 0;
    eb_cie(&e, 1, "eh", 1, -8, 16, NULL, 0, NULL, 0);
    refuse_cie(&e, "augmentation not starting with z");
    e.n = 0;
    eb_gcc_cie(&e);
    e.b[4] = 1;
    refuse_cie(&e, "an FDE's id");
    e.n = 0;
    eb_gcc_cie(&e);
    memset(e.b, 0, 4);
    refuse_cie(&e, "length 0 (the terminator)");
    e.n = 0;
    eb_gcc_cie(&e);
    memset(e.b, 0xff, 4);
    refuse_cie(&e, "64-bit DWARF");
    e.n = 0;
    eb_gcc_cie(&e);
    e.b[0] += 1; /* one byte longer than there is */
    refuse_cie(&e, "length past the extent");
    e.n = 0;
    eb_gcc_cie(&e);
    e.n = 3;
    refuse_cie(&e, "no room for the length");

    /* The augmentation string runs to the entry's end without its NUL. */
    e.n = 0;
    eb_u32(&e, 0);
    eb_u32(&e, 0);
    eb_u8(&e, 1);
    eb_bytes(&e, "zRzRzR", 6);
    eb_end_entry(&e, 0);
    refuse_cie(&e, "unterminated augmentation");

    /* Augmentation data longer than the entry. */
    e.n = 0;
    eb_u32(&e, 0);
    eb_u32(&e, 0);
    eb_u8(&e, 1);
    eb_bytes(&e, "zR", 3);
    eb_uleb(&e, 1);
    eb_sleb(&e, -8);
    eb_u8(&e, 16);
    eb_uleb(&e, 9);
    eb_u8(&e, 0x1b);
    eb_end_entry(&e, 0);
    refuse_cie(&e, "augmentation data past the end");

    /* 'R' whose byte is missing from the augmentation data. */
    e.n = 0;
    eb_cie(&e, 1, "zR", 1, -8, 16, NULL, 0, NULL, 0);
    refuse_cie(&e, "no FDE encoding byte");

    /* The code alignment cut off by the entry's end. */
    e.n = 0;
    eb_u32(&e, 0);
    eb_u32(&e, 0);
    eb_u8(&e, 1);
    eb_bytes(&e, "", 1);
    eb_u8(&e, 0x80);
    eb_end_entry(&e, 0);
    refuse_cie(&e, "code alignment cut short");

    /* An entry outside the extent it is said to be in. */
    e.n = 0;
    eb_gcc_cie(&e);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = extent_of(p + 1, e.n - 1);
    struct eh_cie ci;
    ck_assert(!eh_parse_cie(p, &ext, &ci));
    eb_unplace(p, e.n);
}
END_TEST

START_TEST(fde_pcrel)
{
    struct eb e = { .n = 0 };
    size_t cie = eb_gcc_cie(&e);
    size_t fde = e.n;
    eb_u32(&e, 0);
    eb_u32(&e, (uint32_t)(fde + 4 - cie));
    size_t begin_at = e.n;
    eb_u32(&e, (uint32_t)-0x100); /* pcrel: 0x100 before this field */
    eb_u32(&e, 0x42);             /* range */
    eb_uleb(&e, 2);               /* augmentation data, skipped */
    eb_u8(&e, 0xee);
    eb_u8(&e, 0xee);
    eb_bytes(&e, some_insns, sizeof some_insns);
    eb_end_entry(&e, fde);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = extent_of(p, e.n);
    struct eh_cie ci;
    struct eh_fde fd;
    ck_assert(eh_parse_fde(p + fde, &ext, &ci, &fd));
    ck_assert_uint_eq(fd.pc_begin, (uintptr_t)(p + begin_at) - 0x100);
    ck_assert_uint_eq(fd.pc_end, fd.pc_begin + 0x42);
    ck_assert_ptr_eq(fd.insns.p, p + e.n - sizeof some_insns);
    ck_assert_ptr_eq(fd.insns.end, p + e.n);
    ck_assert_int_eq(ci.data_align, -8);
    eb_unplace(p, e.n);
}
END_TEST

START_TEST(fde_absolute_and_udata)
{
    /* A CIE without augmentation: FDE addresses are 8-byte absolute. */
    struct eb e = { .n = 0 };
    size_t cie = eb_cie(&e, 1, "", 1, -8, 16, NULL, 0, NULL, 0);
    size_t fde = eb_fde_abs(&e, cie, 0x401000, 0x80, 0, some_insns,
                            sizeof some_insns);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = extent_of(p, e.n);
    struct eh_cie ci;
    struct eh_fde fd;
    ck_assert(eh_parse_fde(p + fde, &ext, &ci, &fd));
    ck_assert_uint_eq(fd.pc_begin, 0x401000);
    ck_assert_uint_eq(fd.pc_end, 0x401080);
    ck_assert_uint_eq(fd.insns.end - fd.insns.p, sizeof some_insns);
    eb_unplace(p, e.n);

    /* "zR" with udata2 addresses: the range is read in the same format. */
    static const uint8_t enc = EH_PE_UDATA2;
    e.n = 0;
    cie = eb_cie(&e, 1, "zR", 1, -8, 16, &enc, 1, NULL, 0);
    fde = e.n;
    eb_u32(&e, 0);
    eb_u32(&e, (uint32_t)(fde + 4 - cie));
    uint16_t begin = 0x1234, range = 0x10;
    eb_bytes(&e, &begin, 2);
    eb_bytes(&e, &range, 2);
    eb_uleb(&e, 0);
    eb_end_entry(&e, fde);
    p = eb_place(e.b, e.n);
    ext = extent_of(p, e.n);
    ck_assert(eh_parse_fde(p + fde, &ext, &ci, &fd));
    ck_assert_uint_eq(fd.pc_begin, 0x1234);
    ck_assert_uint_eq(fd.pc_end, 0x1244);
    ck_assert_ptr_eq(fd.insns.p, fd.insns.end);
    eb_unplace(p, e.n);
}
END_TEST

static void refuse_fde(const struct eb *e, size_t fde, const char *why)
{
    uint8_t *p = eb_place(e->b, e->n);
    struct eh_extent ext = extent_of(p, e->n);
    struct eh_cie ci;
    struct eh_fde fd;
    ck_assert_msg(!eh_parse_fde(p + fde, &ext, &ci, &fd), "accepted: %s", why);
    eb_unplace(p, e->n);
}

START_TEST(fde_malformed)
{
    struct eb e = { .n = 0 };
    size_t cie = eb_cie(&e, 1, "", 1, -8, 16, NULL, 0, NULL, 0);
    size_t fde = eb_fde_abs(&e, cie, 0x1000, 0x10, 0, NULL, 0);
    memset(e.b + fde + 4, 0, 4);
    refuse_fde(&e, fde, "CIE pointer 0 (a CIE, not an FDE)");

    e.n = 0;
    cie = eb_cie(&e, 1, "", 1, -8, 16, NULL, 0, NULL, 0);
    fde = eb_fde_abs(&e, cie, 0x1000, 0x10, 0, NULL, 0);
    uint32_t far = (uint32_t)(fde + 4 + 64);
    memcpy(e.b + fde + 4, &far, 4);
    refuse_fde(&e, fde, "CIE pointer before the extent");

    /* The CIE pointer names another FDE. */
    e.n = 0;
    cie = eb_cie(&e, 1, "", 1, -8, 16, NULL, 0, NULL, 0);
    size_t first = eb_fde_abs(&e, cie, 0x1000, 0x10, 0, NULL, 0);
    fde = eb_fde_abs(&e, first, 0x2000, 0x10, 0, NULL, 0);
    refuse_fde(&e, fde, "CIE pointer to an FDE");

    /* Indirect FDE addresses are never used for code ranges. */
    static const uint8_t indirect = EH_PE_INDIRECT | EH_PE_UDATA4;
    e.n = 0;
    cie = eb_cie(&e, 1, "zR", 1, -8, 16, &indirect, 1, NULL, 0);
    fde = e.n;
    eb_u32(&e, 0);
    eb_u32(&e, (uint32_t)(fde + 4 - cie));
    eb_u32(&e, 0x1000);
    eb_u32(&e, 0x10);
    eb_uleb(&e, 0);
    eb_end_entry(&e, fde);
    refuse_fde(&e, fde, "indirect addresses");

    /* The range cut off by the FDE's end. */
    e.n = 0;
    cie = eb_cie(&e, 1, "", 1, -8, 16, NULL, 0, NULL, 0);
    fde = e.n;
    eb_u32(&e, 0);
    eb_u32(&e, (uint32_t)(fde + 4 - cie));
    uint64_t begin = 0x1000;
    eb_bytes(&e, &begin, 8);
    eb_u32(&e, 0x10);
    eb_end_entry(&e, fde);
    refuse_fde(&e, fde, "range cut short");

    /* Augmentation data longer than the FDE. */
    e.n = 0;
    cie = eb_gcc_cie(&e);
    fde = e.n;
    eb_u32(&e, 0);
    eb_u32(&e, (uint32_t)(fde + 4 - cie));
    eb_u32(&e, 0);
    eb_u32(&e, 0x10);
    eb_uleb(&e, 5);
    eb_end_entry(&e, fde);
    refuse_fde(&e, fde, "augmentation data past the end");

    /* The FDE's length runs past the extent. */
    e.n = 0;
    cie = eb_cie(&e, 1, "", 1, -8, 16, NULL, 0, NULL, 0);
    fde = eb_fde_abs(&e, cie, 0x1000, 0x10, 0, NULL, 0);
    e.b[fde] += 8;
    refuse_fde(&e, fde, "length past the extent");
}
END_TEST

/* ---- the search table ----------------------------------------------------- */

/* An .eh_frame_hdr whose table lists STARTS[i] -> FDE offset 0x1000 + i
 * (both relative to the header, as the linker writes them). */
static size_t build_hdr(struct eb *e, const int32_t *starts, uint32_t count)
{
    e->n = 0;
    eb_u8(e, 1);                            /* version */
    eb_u8(e, EH_PE_PCREL | EH_PE_SDATA4);   /* eh_frame_ptr */
    eb_u8(e, EH_PE_UDATA4);                 /* fde_count */
    eb_u8(e, EH_PE_DATAREL | EH_PE_SDATA4); /* table */
    eb_u32(e, 0x100);
    eb_u32(e, count);
    for (uint32_t i = 0; i < count; i++) {
        eb_u32(e, (uint32_t)starts[i]);
        eb_u32(e, 0x1000 + i);
    }
    return e->n;
}

START_TEST(hdr_search)
{
    static const int32_t starts[] = { -0x2000, -0x1000, 0x40, 0x400, 0x800 };
    struct eb e;
    build_hdr(&e, starts, 5);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = extent_of(p, e.n);
    uintptr_t h = (uintptr_t)p;
    ck_assert_ptr_null(eh_find_fde(p, h - 0x2001, &ext));
    ck_assert_ptr_eq(eh_find_fde(p, h - 0x2000, &ext), p + 0x1000);
    ck_assert_ptr_eq(eh_find_fde(p, h - 0x1001, &ext), p + 0x1000);
    ck_assert_ptr_eq(eh_find_fde(p, h - 0x1000, &ext), p + 0x1001);
    ck_assert_ptr_eq(eh_find_fde(p, h + 0x3f, &ext), p + 0x1001);
    ck_assert_ptr_eq(eh_find_fde(p, h + 0x40, &ext), p + 0x1002);
    ck_assert_ptr_eq(eh_find_fde(p, h + 0x7ff, &ext), p + 0x1003);
    ck_assert_ptr_eq(eh_find_fde(p, h + 0x800, &ext), p + 0x1004);
    ck_assert_ptr_eq(eh_find_fde(p, h + 0x100000, &ext), p + 0x1004);
    eb_unplace(p, e.n);

    /* One entry. */
    build_hdr(&e, starts + 2, 1);
    p = eb_place(e.b, e.n);
    ext = extent_of(p, e.n);
    ck_assert_ptr_null(eh_find_fde(p, (uintptr_t)p + 0x3f, &ext));
    ck_assert_ptr_eq(eh_find_fde(p, (uintptr_t)p + 0x41, &ext), p + 0x1000);
    eb_unplace(p, e.n);
}
END_TEST

static void refuse_hdr(const struct eb *e, size_t extent, const char *why)
{
    uint8_t *p = eb_place(e->b, e->n);
    struct eh_extent ext = extent_of(p, extent);
    ck_assert_msg(eh_find_fde(p, (uintptr_t)p + 0x500, &ext) == NULL,
                  "accepted: %s", why);
    eb_unplace(p, e->n);
}

START_TEST(hdr_malformed)
{
    static const int32_t starts[] = { 0x40, 0x400 };
    struct eb e;
    build_hdr(&e, starts, 2);
    e.b[0] = 2;
    refuse_hdr(&e, e.n, "version 2");
    build_hdr(&e, starts, 2);
    e.b[3] = EH_PE_UDATA4;
    refuse_hdr(&e, e.n, "table not datarel sdata4");
    build_hdr(&e, starts, 2);
    e.b[2] = EH_PE_OMIT;
    refuse_hdr(&e, e.n, "no table");
    build_hdr(&e, starts, 0);
    refuse_hdr(&e, e.n, "empty table");
    build_hdr(&e, starts, 2);
    e.b[1] = 0x07;
    refuse_hdr(&e, e.n, "eh_frame_ptr in a format that does not exist");
    build_hdr(&e, starts, 2);
    uint32_t many = 3;
    memcpy(e.b + 8, &many, 4);
    refuse_hdr(&e, e.n, "a count past the extent");
    build_hdr(&e, starts, 2);
    many = 0x7fffffff;
    memcpy(e.b + 8, &many, 4);
    refuse_hdr(&e, e.n, "a huge count");
    build_hdr(&e, starts, 2);
    refuse_hdr(&e, 3, "header cut by the extent");
    e.n = 10;
    refuse_hdr(&e, e.n, "count cut short");
}
END_TEST

Suite *ehframe_suite(void)
{
    Suite *s = suite_create("ehframe");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, leb128_values);
    tcase_add_test(tc, leb128_malformed);
    tcase_add_test(tc, fixed_and_blocks);
    tcase_add_test(tc, pointer_formats);
    tcase_add_test(tc, pointer_bases);
    tcase_add_test(tc, cie_gcc);
    tcase_add_test(tc, cie_versions_and_augmentations);
    tcase_add_test(tc, cie_malformed);
    tcase_add_test(tc, fde_pcrel);
    tcase_add_test(tc, fde_absolute_and_udata);
    tcase_add_test(tc, fde_malformed);
    tcase_add_test(tc, hdr_search);
    tcase_add_test(tc, hdr_malformed);
    suite_add_tcase(s, tc);
    return s;
}
