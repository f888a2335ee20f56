/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symcases.S - a symbol table with the cases that make libbfd's function
 * lookup without DWARF more than "the last symbol before the address", for
 * the symindex unit suite (which compares the index with libbfd on every
 * byte of the built library) and the symextent one (where functions end:
 * gaps, nested symbols, sizeless ones).  Assembled twice (PART=1,
 * PART=2) and linked into one shared object: two STT_FILE symbols, locals
 * under each.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define FILL(n) .fill n, 1, 0x90

#if PART == 1
	.file	"part1.c"
	/* Created first, so listed before `outer': libbfd's pass meets it
	 * before outer is its best and does not shorten outer there. */
	.type	early_inner, @function
	.text

	.globl	plain
	.type	plain, @function
plain:	FILL(16)
	.size	plain, 16
	FILL(8)			/* a gap: libbfd still names `plain' */

	.type	outer, @function
outer:	FILL(16)
early_inner:
	FILL(24)
	.size	early_inner, 8
late_inner:			/* listed after outer: shortens it */
	FILL(24)
	.size	late_inner, 8
	.type	late_inner, @function
	.size	outer, 64

	/* Four symbols at one address: function, IFUNC, typeless. */
	.globl	tie_notype
	.globl	tie_func
	.globl	tie_ifunc
	.type	tie_func, @function
	.type	tie_ifunc, @gnu_indirect_function
tie_notype:
tie_func:
tie_ifunc:
tie_label:			/* local, no type, no size: size 1 */
	FILL(48)
	.size	tie_notype, 48
	.size	tie_func, 32
	.size	tie_ifunc, 16

	/* Hidden, local, typeless and sizeless: an annobin marker, never a
	 * function for libbfd. */
	.hidden	annobin_like
annobin_like:
	FILL(8)

	/* A long function and a short one at the same address, a third
	 * inside the long one. */
	.globl	big
	.globl	small_a
	.globl	small_b
	.type	big, @function
	.type	small_a, @function
	.type	small_b, @function
small_a:
big:	FILL(32)
small_b:
	FILL(32)
	.size	big, 64
	.size	small_a, 16
	.size	small_b, 16

	/* Data in .text: an object, never a function. */
	.type	table_in_text, @object
table_in_text:
	FILL(8)
	.size	table_in_text, 8
#else
	.file	"part2.c"
	.text
	.type	static_fn, @function
static_fn:
	FILL(16)
	.size	static_fn, 16

	.globl	part2_global
	.type	part2_global, @function
part2_global:
	FILL(16)
	.size	part2_global, 16

	/* A function without .size (st_size 0): it reaches the next symbol
	 * and no further (symextent.c). */
	.globl	unsized
	.type	unsized, @function
unsized:
	FILL(24)
	.globl	last_sized
	.type	last_sized, @function
last_sized:
	FILL(8)
	.size	last_sized, 8
	FILL(40)		/* to the end of .text: in no function */
#endif
	.section .note.GNU-stack, "", @progbits
