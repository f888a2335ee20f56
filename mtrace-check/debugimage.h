/* SPDX-License-Identifier: GPL-3.0-or-later */
/* debugimage.h - an ELF file's compressed debug sections, decompressed
 * before libbfd sees them.  libbfd inflates SHF_COMPRESSED sections with
 * zlib, which was most of the time spent on a stack log (glibc's debug
 * file holds about 10 MB of compressed DWARF, read whole at the first
 * lookup).  This builds, in memory, the same file with those sections
 * decompressed by libdeflate (about 4x faster), for libbfd to open
 * through bfd_openr_iovec: the file's bytes unchanged, the decompressed
 * sections appended, and a new section header table pointing at them.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_DEBUGIMAGE_H
#define MTC_DEBUGIMAGE_H

#include <stddef.h>

struct debug_image {
    unsigned char *data;
    size_t size;
};

/* Build the image of the ELF64 file at PATH.  Returns 0, or -1 when it
 * has no zlib-compressed section (or is no ELF64 file this handles):
 * libbfd then reads the file itself. */
int debug_image_build(const char *path, struct debug_image *img);

void debug_image_free(struct debug_image *img);

#endif
