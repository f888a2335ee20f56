/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symextent.h - where an image's function symbols end.
 *
 * Without debug information libbfd names an address by the nearest
 * function symbol that starts at or before it, whatever that symbol's
 * size: a frame of /usr/bin/git 25 KB past the end of `error' (188
 * bytes) is called `error', and the flame graphs inherit the wrong name.
 * The stack report asks this index first: an address that no function
 * symbol's extent covers is "??" with its module and offset, as valgrind
 * and libmtrace's own report files print it.
 *
 * A symbol's extent is [st_value, st_value + st_size); a symbol of size 0
 * (assembly without .size) extends to the next symbol's start (of any
 * kind: data in .text ends it too), and no further than its section.
 * Symbols of .symtab and .dynsym count alike: functions, IFUNCs and
 * typeless symbols (not annobin markers) in allocated sections.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_SYMEXTENT_H
#define MTC_SYMEXTENT_H

#include <stdint.h>

struct symextent;

/* The extents of the ELF file at PATH (64-bit, little-endian: x86-64),
 * or NULL when it cannot be read, is no such file or has no function
 * symbol: then nothing is known and no answer is changed. */
struct symextent *symextent_load(const char *path);

/* 1 when a function symbol's extent holds the address VMA (as st_value
 * counts: the image's link-time address), else 0. */
int symextent_covers(const struct symextent *x, uint64_t vma);

void symextent_free(struct symextent *x);

#endif
