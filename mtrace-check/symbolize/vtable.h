/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vtable.h - the C++ class whose vtable holds an address: what a leaked
 * object is, from its first word (the "#b" records, doc/format.md).
 *
 * The ELF file's symbol tables (.symtab, else .dynsym) are searched for
 * an object symbol "_ZTV..." (a vtable) whose extent holds the offset;
 * its demangled name, "vtable for shop::Gadget", gives the class.  A file
 * whose build-id differs from the one the log recorded is not the file
 * the program ran: no answer.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VTABLE_H
#define MTC_VTABLE_H

#include <stdint.h>

/* The class whose vtable holds OFF (as st_value counts) in the ELF file
 * PATH, malloc'd ("shop::Gadget"), or NULL.  BUILD_ID: the log's, or ""
 * (not checked). */
char *vtable_class(const char *path, const char *build_id, uint64_t off);

#endif
