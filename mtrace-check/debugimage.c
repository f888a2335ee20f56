/* SPDX-License-Identifier: GPL-3.0-or-later */
/* debugimage.c - decompressed copies of ELF files for libbfd (see
 * debugimage.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "debugimage.h"
#include "util.h"

#include <elf.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
 * section header table.  Returns its size, 0 when nothing is compressed. */
static size_t layout(const unsigned char *m, size_t size, const Elf64_Shdr *sh,
                     unsigned n, Elf64_Shdr *out)
{
    size_t end = size, compressed = 0;

    for (unsigned i = 0; i < n; i++) {
        out[i] = sh[i];
        const Elf64_Chdr *ch = zlib_header(m, size, &sh[i]);
        if (!ch)
            continue;
        size_t a = ch->ch_addralign && ch->ch_addralign <= 4096
                       ? (size_t)ch->ch_addralign
                       : 1;
        end = align_up(end, a);
        out[i].sh_offset = end;
        out[i].sh_size = ch->ch_size;
        out[i].sh_addralign = a;
        out[i].sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
        end += ch->ch_size;
        compressed++;
    }
    return compressed ? align_up(end, 8) + n * sizeof(Elf64_Shdr) : 0;
}

static int fill(const unsigned char *m, size_t size, const Elf64_Shdr *sh,
                const Elf64_Shdr *out, unsigned n, struct debug_image *img)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    int ok = d != NULL;

    memcpy(img->data, m, size);
    for (unsigned i = 0; ok && i < n; i++) {
        const Elf64_Chdr *ch = zlib_header(m, size, &sh[i]);
        size_t got;
        if (ch)
            ok = libdeflate_zlib_decompress(
                     d, (const unsigned char *)(ch + 1),
                     sh[i].sh_size - sizeof *ch, img->data + out[i].sh_offset,
                     out[i].sh_size, &got) == LIBDEFLATE_SUCCESS &&
                 got == out[i].sh_size;
    }
    if (d)
        libdeflate_free_decompressor(d);
    return ok ? 0 : -1;
}

/* The image's memory, written once from end to end: faulted in by one
 * call instead of a page at a time, on huge pages where the system allows
 * (glibc's image is about 20 MB: some 5,000 faults, about a sixth of
 * mtrace-check's time on a stack log).  NULL when out of memory. */
static unsigned char *image_map(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    madvise(p, size, MADV_POPULATE_WRITE);
#endif
    return p;
}

static int build(const unsigned char *m, size_t size, struct debug_image *img)
{
    const Elf64_Shdr *sh = section_headers(m, size);
    if (!sh)
        return -1;
    unsigned n = ((const Elf64_Ehdr *)m)->e_shnum;
    Elf64_Shdr *out = xmalloc(n * sizeof *out);
    size_t total = layout(m, size, sh, n, out);
    int err = -1;

    if (total) {
        img->size = total;
        img->data = image_map(total);
        err = img->data ? fill(m, size, sh, out, n, img) : -1;
        size_t table = total - n * sizeof *out;
        if (!err) {
            memcpy(img->data + table, out, n * sizeof *out);
            ((Elf64_Ehdr *)img->data)->e_shoff = table;
        }
        if (err)
            debug_image_free(img);
    }
    free(out);
    return err;
}

int debug_image_build(const char *path, struct debug_image *img)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC), err = -1;

    memset(img, 0, sizeof *img);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < (1ull << 32)) {
        size_t size = (size_t)st.st_size;
        void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            err = build(m, size, img);
            munmap(m, size);
        }
    }
    close(fd);
    return err;
}

void debug_image_free(struct debug_image *img)
{
    if (img->data)
        munmap(img->data, img->size);
    img->data = NULL;
    img->size = 0;
}
