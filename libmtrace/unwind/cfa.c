/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cfa.c - see cfa.h. */
#include "unwind/cfa.h"
#include <string.h>

/* One run of instructions towards the row for TARGET. */
struct cfa_run {
    uintptr_t loc, target;
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;
    const struct cfa_row *initial; /* after the CIE: for DW_CFA_restore */
    struct cfa_row stack[CFA_STATE_STACK];
    int depth;
};

static void set_reg(struct cfa_row *row, uint64_t reg, enum cfa_reg_how how,
                    int64_t off)
{
    struct cfa_reg rule = { how, off };
    if (reg == DW_RBP)
        row->rbp = rule;
    else if (reg == DW_RA)
        row->ra = rule;
}

static void restore_reg(struct cfa_row *row, const struct cfa_run *run,
                        uint64_t reg)
{
    struct cfa_row none = { .rbp = { CFA_REG_SAME, 0 },
                            .ra = { CFA_REG_OTHER, 0 } };
    const struct cfa_row *from = run->initial ? run->initial : &none;
    if (reg == DW_RBP)
        row->rbp = from->rbp;
    else if (reg == DW_RA)
        row->ra = from->ra;
}

static void def_cfa_reg(struct cfa_row *row, uint64_t reg)
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

static int def_cfa_expression(struct eh_cursor *c, struct cfa_run *run,
                              struct cfa_row *row)
{
    const uint8_t *expr;
    uint64_t len;
    if (!eh_block(c, &expr, &len))
        return -1;
    if (drap_cfa(expr, len, &row->cfa_off))
        row->cfa = CFA_DRAP;
    else if (plt_cfa(expr, len, run->target, &row->cfa_off))
        row->cfa = CFA_RSP;
    else
        row->cfa = CFA_OTHER;
    return 0;
}

static int reg_expression(struct eh_cursor *c, struct cfa_row *row)
{
    const uint8_t *expr;
    uint64_t reg, len;
    if (!eh_uleb(c, &reg) || !eh_block(c, &expr, &len))
        return -1;
    bool drap = reg == DW_RBP && len == sizeof drap_rbp &&
                memcmp(expr, drap_rbp, len) == 0;
    set_reg(row, reg, drap ? CFA_REG_AT_RBP : CFA_REG_OTHER, 0);
    return 0;
}

/* The register-rule instructions with two operands; -1 when malformed. */
static int run_reg_rule(struct eh_cursor *c, struct cfa_run *run,
                        struct cfa_row *row, uint8_t op)
{
    uint64_t reg, u;
    int64_t s;
    const uint8_t *block;
    if (!eh_uleb(c, &reg))
        return -1;
    switch (op) {
    case 0x05: /* offset_extended */
        if (!eh_uleb(c, &u))
            return -1;
        set_reg(row, reg, CFA_REG_AT_CFA, (int64_t)u * run->data_align);
        return 0;
    case 0x11: /* offset_extended_sf */
        if (!eh_sleb(c, &s))
            return -1;
        set_reg(row, reg, CFA_REG_AT_CFA, s * run->data_align);
        return 0;
    case 0x2f: /* GNU_negative_offset_extended */
        if (!eh_uleb(c, &u))
            return -1;
        set_reg(row, reg, CFA_REG_AT_CFA, -(int64_t)u * run->data_align);
        return 0;
    case 0x09: /* register */
    case 0x14: /* val_offset */
        if (!eh_uleb(c, &u))
            return -1;
        break;
    case 0x15: /* val_offset_sf */
        if (!eh_sleb(c, &s))
            return -1;
        break;
    case 0x16: /* val_expression */
        if (!eh_block(c, &block, &u))
            return -1;
        break;
    default:
        return -1;
    }
    set_reg(row, reg, CFA_REG_OTHER, 0); /* in another register, or a value */
    return 0;
}

/* The instructions that define the CFA; -1 when malformed. */
static int run_def_cfa(struct eh_cursor *c, struct cfa_run *run,
                       struct cfa_row *row, uint8_t op)
{
    uint64_t reg, u;
    int64_t s;
    switch (op) {
    case 0x0c: /* def_cfa */
        if (!eh_uleb(c, &reg) || !eh_uleb(c, &u))
            return -1;
        def_cfa_reg(row, reg);
        row->cfa_off = (int64_t)u;
        return 0;
    case 0x0d: /* def_cfa_register */
        if (!eh_uleb(c, &reg))
            return -1;
        def_cfa_reg(row, reg);
        return 0;
    case 0x0e: /* def_cfa_offset */
        if (!eh_uleb(c, &u))
            return -1;
        row->cfa_off = (int64_t)u;
        return 0;
    case 0x0f: /* def_cfa_expression */
        return def_cfa_expression(c, run, row);
    case 0x12: /* def_cfa_sf */
        if (!eh_uleb(c, &reg) || !eh_sleb(c, &s))
            return -1;
        def_cfa_reg(row, reg);
        row->cfa_off = s * run->data_align;
        return 0;
    case 0x13: /* def_cfa_offset_sf */
        if (!eh_sleb(c, &s))
            return -1;
        row->cfa_off = s * run->data_align;
        return 0;
    default:
        return -1;
    }
}

/* Runs one extended (top two bits zero) instruction OP; -1 on a malformed
 * or unknown instruction, 0 to go on, 1 when the target is passed. */
static int run_extended(struct eh_cursor *c, struct cfa_run *run,
                        struct cfa_row *row, uint8_t op)
{
    uint64_t reg, u;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uintptr_t addr;
    switch (op) {
    case 0x00: /* nop */
        return 0;
    case 0x01: /* set_loc */
        if (!eh_encoded(c, run->fde_enc, &addr))
            return -1;
        run->loc = addr;
        return addr > run->target;
    case 0x02: /* advance_loc1 */
        return eh_u8(c, &u8) ? !advance(run, u8) : -1;
    case 0x03: /* advance_loc2 */
        return eh_fixed(c, &u16, 2) ? !advance(run, u16) : -1;
    case 0x04: /* advance_loc4 */
        return eh_fixed(c, &u32, 4) ? !advance(run, u32) : -1;
    case 0x06: /* restore_extended */
    case 0x07: /* undefined */
    case 0x08: /* same_value */
        if (!eh_uleb(c, &reg))
            return -1;
        if (op == 0x06)
            restore_reg(row, run, reg);
        else
            set_reg(row, reg, op == 0x07 ? CFA_REG_UNDEFINED : CFA_REG_SAME, 0);
        return 0;
    case 0x0a: /* remember_state: the CFA too, as GCC's unwinder does */
        if (run->depth == CFA_STATE_STACK)
            return -1;
        run->stack[run->depth++] = *row;
        return 0;
    case 0x0b: /* restore_state */
        if (run->depth == 0)
            return -1;
        *row = run->stack[--run->depth];
        return 0;
    case 0x0c: /* def_cfa */
    case 0x0d: /* def_cfa_register */
    case 0x0e: /* def_cfa_offset */
    case 0x0f: /* def_cfa_expression */
    case 0x12: /* def_cfa_sf */
    case 0x13: /* def_cfa_offset_sf */
        return run_def_cfa(c, run, row, op);
    case 0x10: /* expression */
        return reg_expression(c, row);
    case 0x2e: /* GNU_args_size */
        return eh_uleb(c, &u) ? 0 : -1;
    default:
        return run_reg_rule(c, run, row, op);
    }
}

/* Runs the instructions in C on ROW until they end or pass the target. */
static bool run_cfa(struct eh_cursor c, struct cfa_run *run,
                    struct cfa_row *row)
{
    uint8_t op;
    uint64_t u;
    while (eh_u8(&c, &op)) {
        int r = 0;
        switch (op >> 6) {
        case 1: /* advance_loc */
            r = !advance(run, op & 0x3f);
            break;
        case 2: /* offset */
            if (!eh_uleb(&c, &u))
                return false;
            set_reg(row, op & 0x3f, CFA_REG_AT_CFA,
                    (int64_t)u * run->data_align);
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

bool cfa_row_at(const struct eh_cie *ci, const struct eh_fde *fd, uintptr_t pc,
                struct cfa_row *row)
{
    struct cfa_run run = {
        .loc = fd->pc_begin,
        .target = pc,
        .code_align = ci->code_align,
        .data_align = ci->data_align,
        .fde_enc = ci->fde_enc,
    };
    *row = (struct cfa_row){ .cfa = CFA_OTHER,
                             .rbp = { CFA_REG_SAME, 0 },
                             .ra = { CFA_REG_OTHER, 0 } };
    if (!run_cfa(ci->insns, &run, row))
        return false;
    struct cfa_row initial = *row;
    run.initial = &initial;
    run.depth = 0;
    run.loc = fd->pc_begin;
    return run_cfa(fd->insns, &run, row);
}
