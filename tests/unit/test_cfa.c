/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cfa.c - cfa.h on hand-made call frame instructions: each DW_CFA
 * operation the interpreter follows, the expressions it recognises, the
 * rows it stops at, and malformed instructions it must refuse.  Every
 * function here is a hand-made FDE for [0x1000, 0x1100) whose CIE says
 * CFA = RSP + 8, return address at CFA - 8 (unless a test gives others).
 */
#include "unwind/cfa.h"
#include "ehbytes.h"

#define FN_START 0x1000
#define FN_SIZE 0x100

static const uint8_t usual_cie[] = { 0x0c, 0x07, 0x08, 0x90, 0x01 };

/* The row at PC of the FDE with instructions FDE (FN bytes) under a CIE
 * with CODE_ALIGN, data alignment -8 and instructions CIE (CN bytes); the
 * result of cfa_row_at. */
static bool row_with(const uint8_t *cie, size_t cn, uint64_t code_align,
                     const uint8_t *fde, size_t fn, uintptr_t pc,
                     struct cfa_row *row)
{
    struct eb e = { .n = 0 };
    size_t c = eb_cie(&e, 1, "", code_align, -8, 16, NULL, 0, cie, cn);
    size_t f = eb_fde_abs(&e, c, FN_START, FN_SIZE, 0, fde, fn);
    uint8_t *p = eb_place(e.b, e.n);
    struct eh_extent ext = { p, p + e.n };
    struct eh_cie ci;
    struct eh_fde fd;
    ck_assert(eh_parse_fde(p + f, &ext, &ci, &fd));
    bool ok = cfa_row_at(&ci, &fd, pc, row);
    eb_unplace(p, e.n);
    return ok;
}

static bool row_at(const uint8_t *fde, size_t fn, uintptr_t pc,
                   struct cfa_row *row)
{
    return row_with(usual_cie, sizeof usual_cie, 1, fde, fn, pc, row);
}

#define ROW(insns, pc, row) row_at(insns, sizeof insns, pc, row)

/* The row must be BASE + OFF, RBP as RBP_HOW/RBP_OFF, the return address
 * as RA_HOW/RA_OFF. */
static void expect(const struct cfa_row *r, enum cfa_base base, int64_t off,
                   enum cfa_reg_how rbp_how, int64_t rbp_off,
                   enum cfa_reg_how ra_how, int64_t ra_off, const char *at)
{
    ck_assert_msg(r->cfa == base, "%s: CFA base %d, want %d", at, r->cfa, base);
    if (base != CFA_OTHER)
        ck_assert_msg(r->cfa_off == off, "%s: CFA offset %lld, want %lld", at,
                      (long long)r->cfa_off, (long long)off);
    ck_assert_msg(r->rbp.how == rbp_how, "%s: RBP rule %d, want %d", at,
                  r->rbp.how, rbp_how);
    if (rbp_how == CFA_REG_AT_CFA)
        ck_assert_msg(r->rbp.off == rbp_off, "%s: RBP at %lld, want %lld", at,
                      (long long)r->rbp.off, (long long)rbp_off);
    ck_assert_msg(r->ra.how == ra_how, "%s: RA rule %d, want %d", at, r->ra.how,
                  ra_how);
    if (ra_how == CFA_REG_AT_CFA)
        ck_assert_msg(r->ra.off == ra_off, "%s: RA at %lld, want %lld", at,
                      (long long)r->ra.off, (long long)ra_off);
}

/* The usual return address rule. */
#define RA CFA_REG_AT_CFA, -8

START_TEST(prologue_and_epilogue)
{
    /* push %rbp; mov %rsp,%rbp; ...; leave (GCC -O0 style). */
    static const uint8_t fde[] = {
        0x41,             /* advance_loc 1 */
        0x0e, 0x10,       /* def_cfa_offset 16 */
        0x86, 0x02,       /* offset r6 at CFA - 16 */
        0x43,             /* advance_loc 3 */
        0x0d, 0x06,       /* def_cfa_register r6 */
        0x54,             /* advance_loc 20 */
        0x0c, 0x07, 0x08, /* def_cfa r7 8 */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, RA, "entry");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RSP, 16, CFA_REG_AT_CFA, -16, RA, "after push");
    ck_assert(ROW(fde, 0x1003, &r));
    expect(&r, CFA_RSP, 16, CFA_REG_AT_CFA, -16, RA, "before mov");
    ck_assert(ROW(fde, 0x1004, &r));
    expect(&r, CFA_RBP, 16, CFA_REG_AT_CFA, -16, RA, "body");
    ck_assert(ROW(fde, 0x1017, &r));
    expect(&r, CFA_RBP, 16, CFA_REG_AT_CFA, -16, RA, "end of body");
    ck_assert(ROW(fde, 0x1018, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, -16, RA, "after leave");
    ck_assert(ROW(fde, 0x10ff, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, -16, RA, "last byte");
}
END_TEST

START_TEST(advance_forms_and_code_alignment)
{
    static const uint8_t fde[] = {
        0x02, 0x01,                   /* advance_loc1 1 (x4) */
        0x0e, 0x10,                   /* def_cfa_offset 16 */
        0x03, 0x02, 0x00,             /* advance_loc2 2 (x4) */
        0x0e, 0x18,                   /* def_cfa_offset 24 */
        0x04, 0x01, 0x00, 0x00, 0x00, /* advance_loc4 1 (x4) */
        0x0e, 0x20,                   /* def_cfa_offset 32 */
        0x41,                         /* advance_loc 1 (x4) */
        0x0e, 0x28,                   /* def_cfa_offset 40 */
    };
    static const struct {
        uintptr_t pc;
        int64_t cfa;
    } rows[] = {
        { 0x1003, 8 },  { 0x1004, 16 }, { 0x100b, 16 }, { 0x100c, 24 },
        { 0x100f, 24 }, { 0x1010, 32 }, { 0x1013, 32 }, { 0x1014, 40 }
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct cfa_row r;
        ck_assert(row_with(usual_cie, sizeof usual_cie, 4, fde, sizeof fde,
                           rows[i].pc, &r));
        expect(&r, CFA_RSP, rows[i].cfa, CFA_REG_SAME, 0, RA, "advance");
    }
}
END_TEST

START_TEST(set_loc)
{
    /* The CIE has no 'R': set_loc's address is 8 bytes, absolute. */
    static const uint8_t fde[] = {
        0x01, 0x10, 0x10, 0, 0, 0, 0, 0, 0, /* set_loc 0x1010 */
        0x0e, 0x30,                         /* def_cfa_offset 48 */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x100f, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, RA, "before");
    ck_assert(ROW(fde, 0x1010, &r));
    expect(&r, CFA_RSP, 48, CFA_REG_SAME, 0, RA, "at");
}
END_TEST

START_TEST(restore_to_the_cie)
{
    static const uint8_t fde[] = {
        0x86, 0x02, /* offset r6 at CFA - 16 */
        0x90, 0x03, /* offset r16 at CFA - 24 */
        0x41,       /* advance_loc 1 */
        0xc6,       /* restore r6 */
        0x06, 0x10, /* restore_extended r16 */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, -16, CFA_REG_AT_CFA, -24, "set");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, RA, "restored");

    /* Restore inside the CIE itself: there is no initial row yet, the
     * return address becomes unknown. */
    static const uint8_t cie[] = { 0x0c, 0x07, 0x08, 0x90, 0x01, 0xd0 };
    ck_assert(row_with(cie, sizeof cie, 1, NULL, 0, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, CFA_REG_OTHER, 0, "in the CIE");
}
END_TEST

START_TEST(undefined_and_same_value)
{
    static const uint8_t fde[] = {
        0x07, 0x10, /* undefined r16: the outermost frame */
        0x86, 0x02, /* offset r6 at CFA - 16 */
        0x41,       /* advance_loc 1 */
        0x08, 0x06, /* same_value r6 */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, -16, CFA_REG_UNDEFINED, 0, "a");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, CFA_REG_UNDEFINED, 0, "b");
}
END_TEST

START_TEST(rules_we_cannot_follow)
{
    static const uint8_t fde[] = {
        0x83, 0x05,             /* offset r3: another register, dropped */
        0x09, 0x03, 0x01,       /* register r3 in r1: dropped */
        0x41, 0x09, 0x06, 0x03, /* register r6 in r3 */
        0x41, 0x14, 0x10, 0x01, /* val_offset r16 */
        0x41, 0x15, 0x06, 0x7f, /* val_offset_sf r6 */
        0x41, 0x16, 0x10, 0x02, 0x77, 0x00, /* val_expression r16 */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, RA, "other registers");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_OTHER, 0, RA, "register");
    ck_assert(ROW(fde, 0x1002, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_OTHER, 0, CFA_REG_OTHER, 0, "val_offset");
    ck_assert(ROW(fde, 0x1004, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_OTHER, 0, CFA_REG_OTHER, 0, "val_expr");
}
END_TEST

START_TEST(offset_forms)
{
    static const uint8_t fde[] = {
        0x05, 0x06, 0x03,       /* offset_extended r6 3 (x -8) */
        0x41, 0x11, 0x06, 0x7e, /* offset_extended_sf r6 -2 (x -8) */
        0x41, 0x2f, 0x06, 0x03, /* GNU_negative_offset_extended r6 3 */
        0x41, 0x11, 0x10, 0x02, /* offset_extended_sf r16 2 (x -8) */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, -24, RA, "offset_extended");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, 16, RA, "offset_extended_sf");
    ck_assert(ROW(fde, 0x1002, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, 24, RA, "negative_offset");
    ck_assert(ROW(fde, 0x1003, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_AT_CFA, 24, CFA_REG_AT_CFA, -16, "ra");
}
END_TEST

START_TEST(remember_and_restore_state)
{
    static const uint8_t fde[] = {
        0x0e, 0x10, /* def_cfa_offset 16 */
        0x86, 0x02, /* offset r6 at CFA - 16 */
        0x41, 0x0a, /* remember_state */
        0x0e, 0x08, /* def_cfa_offset 8 */
        0x08, 0x06, /* same_value r6 */
        0x41, 0x0b, /* restore_state: the CFA comes back too */
        0x41, 0x0a, 0x0a, 0x0b, 0x0b, /* nested */
        0x0e, 0x20,
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, RA, "changed");
    ck_assert(ROW(fde, 0x1002, &r));
    expect(&r, CFA_RSP, 16, CFA_REG_AT_CFA, -16, RA, "restored");
    ck_assert(ROW(fde, 0x1003, &r));
    expect(&r, CFA_RSP, 32, CFA_REG_AT_CFA, -16, RA, "nested");
}
END_TEST

START_TEST(def_cfa_forms)
{
    static const uint8_t fde[] = {
        0x12, 0x06, 0x7e,       /* def_cfa_sf r6 -2 (x -8) */
        0x41, 0x13, 0x7d,       /* def_cfa_offset_sf -3 (x -8) */
        0x41, 0x0c, 0x03, 0x08, /* def_cfa r3 8: not RSP or RBP */
        0x41, 0x0c, 0x06, 0x10, /* def_cfa r6 16 */
        0x41, 0x0d, 0x0c,       /* def_cfa_register r12 */
        0x41, 0x0d, 0x07,       /* def_cfa_register r7: the offset stays */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RBP, 16, CFA_REG_SAME, 0, RA, "def_cfa_sf");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_RBP, 24, CFA_REG_SAME, 0, RA, "def_cfa_offset_sf");
    ck_assert(ROW(fde, 0x1002, &r));
    expect(&r, CFA_OTHER, 0, CFA_REG_SAME, 0, RA, "r3");
    ck_assert(ROW(fde, 0x1003, &r));
    expect(&r, CFA_RBP, 16, CFA_REG_SAME, 0, RA, "def_cfa r6");
    ck_assert(ROW(fde, 0x1004, &r));
    expect(&r, CFA_OTHER, 0, CFA_REG_SAME, 0, RA, "r12");
    ck_assert(ROW(fde, 0x1005, &r));
    expect(&r, CFA_RSP, 16, CFA_REG_SAME, 0, RA, "r7");
}
END_TEST

START_TEST(realigned_stack_expressions)
{
    /* GCC's DRAP frame: CFA = *(RBP - 8), RBP saved where RBP points. */
    static const uint8_t fde[] = {
        0x0f, 0x03, 0x76, 0x78, 0x06, /* def_cfa_expression breg6 -8; deref */
        0x10, 0x06, 0x02, 0x76, 0x00, /* expression r6: breg6 0 */
        0x41, 0x10, 0x06, 0x02, 0x76, 0x08, /* expression r6: breg6 8 */
        0x41, 0x0f, 0x02, 0x76, 0x78, /* breg6 -8 without deref: not followed */
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_DRAP, 8, CFA_REG_AT_RBP, 0, RA, "drap");
    ck_assert(ROW(fde, 0x1001, &r));
    expect(&r, CFA_DRAP, 8, CFA_REG_OTHER, 0, RA, "other rbp expression");
    ck_assert(ROW(fde, 0x1002, &r));
    expect(&r, CFA_OTHER, 0, CFA_REG_OTHER, 0, RA, "other cfa expression");
}
END_TEST

START_TEST(plt_expression)
{
    /* The linker's lazy PLT: CFA = RSP + 8, + 8 more once the 16-byte
     * entry has pushed its index at offset 11. */
    static const uint8_t fde[] = {
        0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f,
        0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
    };
    static const struct {
        uintptr_t pc;
        int64_t cfa;
    } rows[] = { { 0x1000, 8 }, { 0x100a, 8 }, { 0x100b, 16 }, { 0x100f, 16 },
                 { 0x1010, 8 }, { 0x101a, 8 }, { 0x101b, 16 }, { 0x10ff, 16 } };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct cfa_row r;
        ck_assert(ROW(fde, rows[i].pc, &r));
        expect(&r, CFA_RSP, rows[i].cfa, CFA_REG_SAME, 0, RA, "plt");
    }
    /* The same with another literal than lit0..lit31: not the PLT's. */
    static const uint8_t other[] = {
        0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f,
        0x1a, 0x50, 0x2a, 0x33, 0x24, 0x22,
    };
    struct cfa_row r;
    ck_assert(ROW(other, 0x1000, &r));
    expect(&r, CFA_OTHER, 0, CFA_REG_SAME, 0, RA, "not plt");
}
END_TEST

START_TEST(ignored_operations)
{
    static const uint8_t fde[] = {
        0x00, /* nop */
        0x2e,
        0x10, /* GNU_args_size 16 */
        0x00,
    };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 8, CFA_REG_SAME, 0, RA, "nops");
}
END_TEST

START_TEST(stops_at_the_target)
{
    /* Whatever follows the row of PC is never read. */
    static const uint8_t fde[] = { 0x0e, 0x10, 0x41, 0x1f };
    struct cfa_row r;
    ck_assert(ROW(fde, 0x1000, &r));
    expect(&r, CFA_RSP, 16, CFA_REG_SAME, 0, RA, "before the bad op");
    ck_assert(!ROW(fde, 0x1001, &r));
}
END_TEST

START_TEST(malformed)
{
    static const struct {
        uint8_t insns[24];
        size_t n;
        const char *what;
    } bad[] = {
        { { 0x1f }, 1, "unknown operation 0x1f" },
        { { 0x17, 0x06, 0x01 }, 3, "unknown operation 0x17" },
        { { 0x3f }, 1, "unknown operation 0x3f" },
        { { 0x86 }, 1, "offset without its operand" },
        { { 0x03, 0x01 }, 2, "advance_loc2 cut short" },
        { { 0x04, 0x01, 0x00 }, 3, "advance_loc4 cut short" },
        { { 0x02 }, 1, "advance_loc1 cut short" },
        { { 0x01, 0x10, 0x10 }, 3, "set_loc cut short" },
        { { 0x0c, 0x07 }, 2, "def_cfa cut short" },
        { { 0x12, 0x07 }, 2, "def_cfa_sf cut short" },
        { { 0x13 }, 1, "def_cfa_offset_sf cut short" },
        { { 0x0d }, 1, "def_cfa_register cut short" },
        { { 0x0e, 0x80 }, 2, "def_cfa_offset cut short" },
        { { 0x0f, 0x05, 0x76 }, 3, "def_cfa_expression past the end" },
        { { 0x10, 0x06, 0x05, 0x76 }, 4, "expression past the end" },
        { { 0x16, 0x06, 0x09 }, 3, "val_expression past the end" },
        { { 0x05, 0x06 }, 2, "offset_extended cut short" },
        { { 0x11, 0x06 }, 2, "offset_extended_sf cut short" },
        { { 0x2f, 0x06 }, 2, "negative_offset_extended cut short" },
        { { 0x09, 0x06 }, 2, "register cut short" },
        { { 0x14, 0x06 }, 2, "val_offset cut short" },
        { { 0x06 }, 1, "restore_extended cut short" },
        { { 0x07 }, 1, "undefined cut short" },
        { { 0x08 }, 1, "same_value cut short" },
        { { 0x2e }, 1, "args_size cut short" },
        { { 0x0b }, 1, "restore_state with nothing remembered" },
        { { 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a },
          9,
          "remember_state nested 9 deep" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cfa_row r;
        ck_assert_msg(!row_at(bad[i].insns, bad[i].n, 0x1080, &r),
                      "accepted: %s", bad[i].what);
    }
    /* Eight levels are allowed. */
    static const uint8_t eight[] = { 0x0a, 0x0a, 0x0a, 0x0a,
                                     0x0a, 0x0a, 0x0a, 0x0a };
    struct cfa_row r;
    ck_assert(ROW(eight, 0x1080, &r));
    /* A state remembered in the CIE is not the FDE's to restore. */
    static const uint8_t cie[] = { 0x0c, 0x07, 0x08, 0x90, 0x01, 0x0a };
    static const uint8_t fde[] = { 0x0b };
    ck_assert(!row_with(cie, sizeof cie, 1, fde, sizeof fde, 0x1000, &r));
    /* Malformed initial instructions fail the row too. */
    static const uint8_t bad_cie[] = { 0x0c, 0x07 };
    ck_assert(!row_with(bad_cie, sizeof bad_cie, 1, NULL, 0, 0x1000, &r));
}
END_TEST

Suite *cfa_suite(void)
{
    Suite *s = suite_create("cfa");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, prologue_and_epilogue);
    tcase_add_test(tc, advance_forms_and_code_alignment);
    tcase_add_test(tc, set_loc);
    tcase_add_test(tc, restore_to_the_cie);
    tcase_add_test(tc, undefined_and_same_value);
    tcase_add_test(tc, rules_we_cannot_follow);
    tcase_add_test(tc, offset_forms);
    tcase_add_test(tc, remember_and_restore_state);
    tcase_add_test(tc, def_cfa_forms);
    tcase_add_test(tc, realigned_stack_expressions);
    tcase_add_test(tc, plt_expression);
    tcase_add_test(tc, ignored_operations);
    tcase_add_test(tc, stops_at_the_target);
    tcase_add_test(tc, malformed);
    suite_add_tcase(s, tc);
    return s;
}
