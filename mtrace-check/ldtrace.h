/* ldtrace.h - the load addresses glibc's Perl checker learns by running
 * `env LD_TRACE_LOADED_OBJECTS=2 BINARY` and matching each output line
 * against /^.*=> (.*) .(0x[0123456789abcdef]*).$/ (after chop): a map from
 * the library path to hex() of its load address.  The Perl script then
 * tries ADDR + that base before ADDR itself.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_LDTRACE_H
#define MTC_LDTRACE_H

#include "maps.h"

/* Fill MAP (path -> heap uint64_t *) from PROG.  The program is run only
 * when it is an ELF file with a program interpreter, where ld.so lists the
 * libraries and exits instead of running it; otherwise MAP stays empty
 * (the Perl script would get no matching line from a failed or foreign
 * run either). */
void ldtrace_load(const char *prog, struct strmap *map);

/* Apply one line of ld.so's output (without its newline) to MAP, exactly
 * as the Perl loop does.  Exposed for the unit tests. */
void ldtrace_parse_line(struct slice line, struct strmap *map);

#endif
