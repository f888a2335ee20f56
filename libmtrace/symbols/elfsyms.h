/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfsyms.h - function names from a module's ELF symbol table (.symtab),
 * for the frames dladdr cannot name (static functions, executables linked
 * without -rdynamic).  Used by reports only, never on the hot path; the
 * caller serialises calls (the report lock). */
#ifndef MT_ELFSYMS_H
#define MT_ELFSYMS_H
#include "symbols/modmap.h"
#include <stddef.h>
#include <stdint.h>

/* A function symbol: module offset, size, name (in the mapped file). */
struct elfsym {
    uintptr_t start, size;
    const char *name;
};
/* Sorts SYMS by start, keeping the table order of equal starts (exposed
 * for the unit tests).  ROOM: N more entries for the sort's use. */
void elfsyms_sort(struct elfsym *syms, size_t n, struct elfsym *room);

/* The demangled name of the function of MOD containing module offset OFF,
 * and OFF's distance from its start; NULL when the file has no such
 * symbol.  The name stays valid for the process's lifetime. */
const char *elfsyms_lookup(struct module *mod, uintptr_t off,
                           uintptr_t *sym_off);

/* The module offset of function NAME (mangled, as in .symtab) of MOD;
 * 0 when it has none. */
int elfsyms_address_of(struct module *mod, const char *name, uintptr_t *off);

#endif
