/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dynsyms.h - dladdr() without its scan.  glibc's dladdr() looks at every
 * symbol of the module's dynamic symbol table on each call: 258 us a call
 * in libclang-cpp.so (31k symbols), half of libmtrace's overhead on
 * clang-format (bench/RESULTS.md, 2026-11-26, fourth session).  Here a
 * module's table is sorted once, the first time one of its addresses is
 * named, and every address is then a binary search, with dladdr()'s
 * answer exactly: the same symbols considered, the same one chosen.
 */
#ifndef MT_DYNSYMS_H
#define MT_DYNSYMS_H
#include <dlfcn.h>

struct module;

/* What dladdr(ADDR, INFO) would return and fill in, for an address in
 * module MOD (modmap_find's: it keeps the sorted table), which must stay
 * loaded meanwhile (a return address on the caller's stack does).  NULL
 * MOD, an object _dl_find_object does not know, or a table without a GNU
 * hash section: dladdr() itself.  Otherwise no loader call and no lock:
 * the object comes from _dl_find_object. */
int dynsyms_addr(const void *addr, struct module *mod, Dl_info *info);

#endif
