/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symindex.h - an image's function symbols sorted by address.
 *
 * For an image without debug information, libbfd names the function of an
 * address by scanning the whole symbol table (_bfd_elf_find_function): on
 * cc1 (28,900 dynamic symbols, no DWARF) that scan was 86% of the
 * checker's instructions for the HTML report.  This index gives the same
 * answer by binary search: the function name and the STT_FILE name that
 * one scan of the table would give for that address alone, including its
 * choice between symbols at the same address.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_SYMINDEX_H
#define MTC_SYMINDEX_H

#include <stdint.h>

struct bfd;
struct bfd_section;
struct bfd_symbol;

struct symindex;

/* 1 when libbfd would answer every address of ABFD from its symbol table
 * alone, the case the index reproduces: an x86 ELF image with no DWARF,
 * stabs or separate debug file that libbfd could find. */
int symindex_applies(struct bfd *abfd);

/* The index of SYMS, an image's canonical symbol table as addr2line reads
 * it (NULL-terminated); never NULL. */
struct symindex *symindex_build(struct bfd_symbol **syms);

/* What libbfd's bfd_find_nearest_line gives for OFFSET in SEC of an image
 * where symindex_applies(): 1 with *FUNC (and *FILE, NULL when no STT_FILE
 * symbol names it) pointing into the symbol table, or 0: no function. */
int symindex_find(const struct symindex *ix, const struct bfd_section *sec,
                  uint64_t offset, const char **func, const char **file);

void symindex_free(struct symindex *ix);

#endif
