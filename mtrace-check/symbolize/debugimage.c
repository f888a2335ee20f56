/* SPDX-License-Identifier: GPL-3.0-or-later */
/* debugimage.c - decompressed copies of ELF files for libbfd (see
 * debugimage.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/debugimage.h"
#include "base/util.h"

#include <fcntl.h>
#include <libdeflate.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The section headers of a well-formed ELF64 file in this machine's byte
 * order, or NULL. */
static const Elf64_Shdr *section_headers(const unsigned char *m, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;

    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
        eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum ||
        eh->e_shoff % 8)
        return NULL;
    return (const Elf64_Shdr *)(m + eh->e_shoff);
}

/* Location lists (.debug_loc, .debug_loclists) say where variables live:
 * no line lookup reads them, so they stay compressed. */
static int never_read(const unsigned char *m, size_t size, const Elf64_Shdr *sh)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    const Elf64_Shdr *names = (const Elf64_Shdr *)(m + eh->e_shoff) +
                              eh->e_shstrndx;
    if (eh->e_shstrndx >= eh->e_shnum || names->sh_offset > size ||
        sh->sh_name >= size - names->sh_offset)
        return 0;
    const char *name = (const char *)m + names->sh_offset + sh->sh_name;
    size_t room = size - names->sh_offset - sh->sh_name;
    return room > 10 && strncmp(name, ".debug_loc", 10) == 0;
}

/* The compression header of section SH, when it is zlib-compressed, lies
 * inside the file and is worth decompressing. */
static const Elf64_Chdr *zlib_header(const unsigned char *m, size_t size,
                                     const Elf64_Shdr *sh)
{
    if (!(sh->sh_flags & SHF_COMPRESSED) || sh->sh_type == SHT_NOBITS ||
        never_read(m, size, sh) || sh->sh_offset > size ||
        sh->sh_size > size - sh->sh_offset ||
        sh->sh_size < sizeof(Elf64_Chdr) || sh->sh_offset % 8)
        return NULL;
    const Elf64_Chdr *ch = (const Elf64_Chdr *)(m + sh->sh_offset);
    if (ch->ch_type != ELFCOMPRESS_ZLIB || ch->ch_size > (1ull << 32))
        return NULL;
    return ch;
}

static size_t align_up(size_t n, size_t a)
{
    return a > 1 ? (n + a - 1) / a * a : n;
}

/* Lay the image out: the file, each decompressed section, then the new
 * section header table.  Fills IMG's table and parts; returns the number
 * of decompressed sections. */
static unsigned layout(const unsigned char *m, size_t size,
                       const Elf64_Shdr *sh, struct debug_image *img)
{
    size_t end = size;

    for (unsigned i = 0; i < img->nsh; i++) {
        img->shdrs[i] = sh[i];
        const Elf64_Chdr *ch = zlib_header(m, size, &sh[i]);
        if (!ch)
            continue;
        size_t a = ch->ch_addralign && ch->ch_addralign <= 4096
                       ? (size_t)ch->ch_addralign
                       : 1;
        end = align_up(end, a);
        img->shdrs[i].sh_offset = end;
        img->shdrs[i].sh_size = ch->ch_size;
        img->shdrs[i].sh_addralign = a;
        img->shdrs[i].sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
        img->parts[img->nparts++] = (struct image_part){
            end, ch->ch_size, (const unsigned char *)(ch + 1),
            sh[i].sh_size - sizeof *ch, NULL
        };
        end += ch->ch_size;
    }
    img->shoff = align_up(end, 8);
    img->size = img->shoff + img->nsh * sizeof(Elf64_Shdr);
    memcpy(&img->ehdr, m, sizeof img->ehdr);
    img->ehdr.e_shoff = img->shoff;
    return img->nparts;
}

int debug_image_build(const char *path, struct debug_image *img)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    memset(img, 0, sizeof *img);
    if (fd < 0)
        return -1;
    void *m = MAP_FAILED;
    size_t size = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < (1ull << 32)) {
        size = (size_t)st.st_size;
        m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    const Elf64_Shdr *sh = section_headers(m, size);
    img->file = m;
    img->file_size = size;
    if (sh) {
        img->nsh = ((const Elf64_Ehdr *)m)->e_shnum;
        img->shdrs = xmalloc(img->nsh * sizeof *img->shdrs);
        img->parts = xmalloc(img->nsh * sizeof *img->parts);
        if (layout(m, size, sh, img) > 0 &&
            (img->decompressor = libdeflate_alloc_decompressor()) != NULL)
            return 0;
    }
    debug_image_free(img);
    return -1;
}

/* Decompress part P into OUT (P->size bytes); 0 or -1. */
static int inflate_part(struct debug_image *img, const struct image_part *p,
                        unsigned char *out)
{
    size_t got;
    return libdeflate_zlib_decompress(img->decompressor, p->z, p->zsize, out,
                                      p->size, &got) == LIBDEFLATE_SUCCESS &&
                   got == p->size
               ? 0
               : -1;
}

/* BUF, about to be written whole (N bytes): its pages faulted in by one
 * call rather than one fault each (libbfd's buffers are fresh memory). */
static void prefault(unsigned char *buf, size_t n)
{
    enum { PAGE = 4096, LARGE = 1 << 20 };
    uintptr_t a = ((uintptr_t)buf + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    uintptr_t b = ((uintptr_t)buf + n) & ~(uintptr_t)(PAGE - 1);
    if (n < LARGE || b <= a)
        return;
#ifdef MADV_POPULATE_WRITE
    madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
}

/* The first END bytes of part P into OUT.  zlib, unlike libdeflate, stops
 * when the output is full: libbfd reads 12 bytes at the start of each
 * section before it reads the section whole, and decompressing the whole
 * section for them sent every section through the cache. */
enum { PREFIX_MAX = 4096 };
static int inflate_prefix(const struct image_part *p, unsigned char *out,
                          size_t end)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (p->zsize > UINT_MAX || inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (Bytef *)p->z;
    z.avail_in = (uInt)p->zsize;
    z.next_out = out;
    z.avail_out = (uInt)end;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    size_t got = end - z.avail_out;
    inflateEnd(&z);
    return (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR) && got == end
               ? 0
               : -1;
}

/* Copies what part P holds of [OFF, OFF + N) into BUF; the count, or -1.
 * A read of the whole section goes straight into BUF, a read of its first
 * bytes through a small buffer, any other through a cache. */
static long read_part(struct debug_image *img, struct image_part *p,
                      unsigned char *buf, size_t n, uint64_t off)
{
    size_t in = (size_t)(off - p->off), take = p->size - in;
    if (take > n)
        take = n;
    if (in == 0 && take == p->size && !p->cache) {
        prefault(buf, take);
        return inflate_part(img, p, buf) ? -1 : (long)take;
    }
    if (!p->cache && in + take <= PREFIX_MAX) {
        unsigned char head[PREFIX_MAX];
        if (inflate_prefix(p, head, in + take))
            return -1;
        memcpy(buf, head + in, take);
        return (long)take;
    }
    if (!p->cache) {
        p->cache = xmalloc(p->size ? p->size : 1);
        if (inflate_part(img, p, p->cache)) {
            free(p->cache);
            p->cache = NULL;
            return -1;
        }
    }
    memcpy(buf, p->cache + in, take);
    return (long)take;
}

/* Copies into BUF at most N bytes of REGION (SIZE bytes) from IN; the
 * count. */
static long copy_region(unsigned char *buf, size_t n, const void *region,
                        uint64_t size, uint64_t in)
{
    size_t take = (size_t)(size - in) < n ? (size_t)(size - in) : n;
    memcpy(buf, (const unsigned char *)region + in, take);
    return (long)take;
}

/* One piece of a read: the bytes from OFF up to the end of whatever
 * holds OFF (the header, the file, a gap, a section, the table). */
static long read_piece(struct debug_image *img, unsigned char *buf, size_t n,
                       uint64_t off)
{
    uint64_t next = img->shoff; /* where the piece holding OFF ends */

    if (off < sizeof img->ehdr)
        return copy_region(buf, n, &img->ehdr, sizeof img->ehdr, off);
    if (off < img->file_size)
        return copy_region(buf, n, img->file, img->file_size, off);
    if (off >= img->shoff)
        return copy_region(buf, n, img->shdrs, img->size - img->shoff,
                           off - img->shoff);
    for (unsigned i = 0; i < img->nparts; i++) {
        struct image_part *p = &img->parts[i];
        if (off >= p->off && off < p->off + p->size)
            return read_part(img, p, buf, n, off);
        if (p->off > off && p->off < next)
            next = p->off;
    }
    size_t take = (size_t)(next - off) < n ? (size_t)(next - off) : n;
    memset(buf, 0, take); /* alignment padding */
    return (long)take;
}

long debug_image_read(struct debug_image *img, void *buf, size_t n,
                      uint64_t offset)
{
    size_t done = 0;

    while (done < n && offset + done < img->size) {
        long got = read_piece(img, (unsigned char *)buf + done, n - done,
                              offset + done);
        if (got <= 0)
            return got < 0 ? -1 : (long)done;
        done += (size_t)got;
    }
    return (long)done;
}

void debug_image_free(struct debug_image *img)
{
    for (unsigned i = 0; i < img->nparts; i++)
        free(img->parts[i].cache);
    if (img->decompressor)
        libdeflate_free_decompressor(img->decompressor);
    if (img->file)
        munmap((void *)img->file, img->file_size);
    free(img->shdrs);
    free(img->parts);
    memset(img, 0, sizeof *img);
}
