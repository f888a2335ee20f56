/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symbolizer.h - addresses to source locations through libbfd, in-process.
 *
 * Two questions are answered, both with one open bfd per file (libbfd keeps
 * its parsed DWARF with it) and a cache of answers:
 *   - sym_addr2line: exactly the first line `addr2line -e FILE ADDR` prints
 *     (what glibc's Perl checker reads), following addr2line's own sequence:
 *     a regular non-empty file, not an archive, an object format, its
 *     static symbols else its dynamic ones, the first SEC_ALLOC section that
 *     contains the address, then find_nearest_line_discriminator;
 *   - sym_frames: the frames of one return address for the stack report:
 *     function (demangled), file and line, including the chain of inlined
 *     functions (bfd_find_inliner_info), innermost first.
 * Separate debug info (.gnu_debuglink, /usr/lib/debug/.build-id) is followed
 * by libbfd's DWARF reader itself.  An image without any debug information
 * is answered from a sorted index of its symbols (symindex.h), with the
 * function names libbfd would give, without its scan of the whole table.
 * sym_frames (not sym_addr2line, which stays addr2line's) then leaves a
 * frame unnamed when no function symbol's extent holds it (symextent.h):
 * libbfd names the nearest symbol before it however far away it ends.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_SYMBOLIZER_H
#define MTC_SYMBOLIZER_H

#include "base/util.h"

struct objfile; /* one file opened with libbfd (or known unusable) */

struct sym_frame {
    char *function; /* demangled; NULL if unknown */
    char *file;     /* NULL if unknown */
    unsigned line;  /* 0 if unknown */
    int inlined;    /* this frame is inlined into the next one */
};

struct sym_result {
    struct sym_frame *frames;
    unsigned nframes; /* 0: the address is in no section of the file */
};

void sym_init(void);

/* The file at PATH, opened once and kept; never NULL (a failed open is
 * remembered as unusable). */
struct objfile *sym_open(const char *path);
int sym_usable(const struct objfile *o);
/* The file's GNU build-id in lowercase hex, "" if none or unusable. */
const char *sym_build_id(const struct objfile *o);

/* addr2line's first output line for ADDR (malloc'd, no newline), or NULL
 * when addr2line would print nothing (unusable file). */
char *sym_addr2line(struct objfile *o, uint64_t addr);

/* Frames for the code address VMA (already adjusted to the call
 * instruction).  The result is cached and owned by the objfile. */
const struct sym_result *sym_frames(struct objfile *o, uint64_t vma);

/* Reads a module's debug information in a thread of its own (started on
 * the first call) while the log is read: PATH will be opened with
 * sym_open() and VMA looked up, as sym_frames() would.  Called only when
 * a core looks free (main.c). */
void sym_prefetch(const char *path, uint64_t vma);
/* Returns when the prefetch thread has nothing to do (at once when it has
 * nothing now, or is stopping). */
void sym_prefetch_wait_idle(void);

/* Every function above may be called from any thread: libbfd is used
 * under one lock. */
void sym_shutdown(void);
/* Stop the prefetch thread alone, leaving the files open: at the end of
 * the program, their memory goes with it. */
void sym_stop(void);

#endif
