/* SPDX-License-Identifier: GPL-3.0-or-later */
/* debugimage.h - an ELF file's compressed debug sections, decompressed
 * before libbfd sees them.  libbfd inflates SHF_COMPRESSED sections with
 * zlib, which was most of the time spent on a stack log (glibc's debug
 * file holds about 4 MB of compressed DWARF, read whole at the first
 * lookup).  This serves libbfd, through bfd_openr_iovec, the same file
 * with those sections decompressed by libdeflate (about 4x faster): the
 * file's bytes unchanged, the decompressed sections after them, and a new
 * section header table pointing at them.  The image is never built in
 * memory: a read is served from the mapped file, and a section is
 * decompressed when it is read, straight into libbfd's buffer (libbfd
 * reads a section whole).  A section nobody reads costs nothing.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_DEBUGIMAGE_H
#define MTC_DEBUGIMAGE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* A decompressed section of the image. */
struct image_part {
    uint64_t off, size;     /* where it lies in the image */
    const unsigned char *z; /* its zlib stream, in the mapped file */
    size_t zsize;
    unsigned char *cache; /* decompressed whole, for a read of a part */
};

struct debug_image {
    const unsigned char *file; /* the file, mapped read-only */
    size_t file_size;
    Elf64_Ehdr ehdr;   /* the file's header, pointing at the new table */
    Elf64_Shdr *shdrs; /* the new section header table */
    uint64_t shoff;
    unsigned nsh;
    struct image_part *parts;
    unsigned nparts;
    void *decompressor;
    size_t size; /* of the image, 0 when there is none */
};

/* Describe the image of the ELF64 file at PATH.  Returns 0, or -1 when it
 * has no zlib-compressed section (or is no ELF64 file this handles):
 * libbfd then reads the file itself. */
int debug_image_build(const char *path, struct debug_image *img);

/* Copy N bytes of the image from OFFSET into BUF, as pread(2) would:
 * returns the count copied (short at the image's end), or -1 when a
 * section does not decompress. */
long debug_image_read(struct debug_image *img, void *buf, size_t n,
                      uint64_t offset);

void debug_image_free(struct debug_image *img);

#endif
