/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cfa.h - the DWARF call frame instructions of a CIE and an FDE, run up to
 * one code address: the row of the CFA table there, reduced to what an
 * x86-64 unwinder that keeps only RSP, RBP and the return address needs.
 *
 * Only three columns are kept: the CFA, RBP (DWARF register 6) and the
 * return address (16); rules for other registers are parsed and dropped.
 * Of DWARF expressions, the few GCC and the linker emit for frames worth
 * following are recognised (a realigned stack, the PLT); any other makes
 * the column CFA_OTHER / CFA_REG_OTHER.  GPL-3.0-or-later. */
#ifndef MT_CFA_H
#define MT_CFA_H
#include "unwind/ehframe.h"

/* DWARF register numbers on x86-64. */
enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

/* How the CFA is found. */
enum cfa_base {
    CFA_RSP,  /* RSP + cfa_off */
    CFA_RBP,  /* RBP + cfa_off */
    CFA_DRAP, /* *(RBP - cfa_off): GCC's realigned stack */
    CFA_OTHER,
};

/* How a register of the caller is found. */
enum cfa_reg_how {
    CFA_REG_SAME, /* unchanged (or undefined) */
    CFA_REG_UNDEFINED,
    CFA_REG_AT_CFA, /* saved at CFA + off */
    CFA_REG_AT_RBP, /* saved at the address in RBP (with CFA_DRAP) */
    CFA_REG_OTHER,  /* anything else: it cannot be followed */
};

struct cfa_reg {
    enum cfa_reg_how how;
    int64_t off;
};

struct cfa_row {
    enum cfa_base cfa;
    int64_t cfa_off;
    struct cfa_reg rbp, ra;
};

/* How deep DW_CFA_remember_state may nest. */
#define CFA_STATE_STACK 8

/* The row of FD (with its CIE CI) at address PC: the CIE's initial
 * instructions, then the FDE's up to PC.  False on an instruction that is
 * malformed or unknown, or a state stack that overflows or underflows. */
bool cfa_row_at(const struct eh_cie *ci, const struct eh_fde *fd, uintptr_t pc,
                struct cfa_row *row);

#endif
