/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symextent.c - where an image's function symbols end (see symextent.h).
 *
 * The file is mapped and its section headers and symbol tables read with
 * every offset and size checked against the file's size: a module named
 * in a log may be any file.  The extents are sorted by start, with the
 * largest end of each prefix kept beside them (as libmtrace's dynsyms.c
 * does), so one binary search answers whether any extent, nested or not,
 * holds an address.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/symextent.h"
#include "base/util.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct extent {
    uint64_t start, size; /* size 0: to the next start, within limit */
    uint64_t limit;       /* the end of the symbol's section */
    int code;             /* 0: only where a sizeless one before it ends */
};

struct symextent {
    size_t n;
    uint64_t *start; /* sorted */
    uint64_t *reach; /* the largest end of extents [0..i] */
};

struct image {
    const unsigned char *p;
    size_t size;
    const Elf64_Shdr *sh;
    size_t nsh;
};

/* N bytes at OFF lie inside the file. */
static int inside(const struct image *im, uint64_t off, uint64_t n)
{
    return off <= im->size && n <= im->size - off;
}

static int open_image(struct image *im, const unsigned char *p, size_t size)
{
    const Elf64_Ehdr *eh = (const void *)p;
    memset(im, 0, sizeof *im);
    im->p = p;
    im->size = size;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff % 8 != 0 ||
        !inside(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return -1;
    im->sh = (const void *)(p + eh->e_shoff);
    im->nsh = eh->e_shnum;
    return 0;
}

/* Whether a symbol may hold code: a function, an IFUNC or a typeless
 * label (hand-written assembly, _start).  Not a hidden, local, typeless
 * symbol of size 0: an annobin marker, no function for libbfd either. */
static int is_code_symbol(const Elf64_Sym *s)
{
    int type = ELF64_ST_TYPE(s->st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
        return 0;
    return !(type == STT_NOTYPE && s->st_size == 0 &&
             ELF64_ST_BIND(s->st_info) == STB_LOCAL &&
             ELF64_ST_VISIBILITY(s->st_other) == STV_HIDDEN);
}

/* Whether a symbol names an address of the image: defined in an
 * allocated section, not a file, section or thread-local symbol.  Each
 * one ends the extent of a sizeless function before it. */
static int is_address(const struct image *im, const Elf64_Sym *s)
{
    int type = ELF64_ST_TYPE(s->st_info);
    if (type == STT_FILE || type == STT_SECTION || type == STT_TLS)
        return 0;
    if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE ||
        s->st_shndx >= im->nsh)
        return 0;
    return (im->sh[s->st_shndx].sh_flags & SHF_ALLOC) != 0;
}

static void add_table(const struct image *im, const Elf64_Shdr *tab,
                      struct extent **v, size_t *n, size_t *cap)
{
    if (tab->sh_entsize != sizeof(Elf64_Sym) || tab->sh_offset % 8 != 0 ||
        !inside(im, tab->sh_offset, tab->sh_size))
        return;
    const Elf64_Sym *sym = (const void *)(im->p + tab->sh_offset);
    size_t count = tab->sh_size / sizeof(Elf64_Sym);
    for (size_t i = 1; i < count; i++) {
        if (!is_address(im, &sym[i]))
            continue;
        const Elf64_Shdr *sec = &im->sh[sym[i].st_shndx];
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *v = xrealloc(*v, *cap * sizeof **v);
        }
        uint64_t limit = sec->sh_addr + sec->sh_size;
        (*v)[(*n)++] = (struct extent){
            sym[i].st_value, sym[i].st_size,
            limit < sec->sh_addr ? UINT64_MAX : limit, is_code_symbol(&sym[i])
        };
    }
}

static int by_start(const void *pa, const void *pb)
{
    const struct extent *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

/* The end of V[I]: its size, or for size 0 the start of NEXT (the next
 * greater start, 0: none), never past its section. */
static uint64_t end_of(const struct extent *e, uint64_t next)
{
    uint64_t end;
    if (e->size) {
        end = e->start + e->size;
        return end < e->start ? UINT64_MAX : end;
    }
    end = next && next < e->limit ? next : e->limit;
    /* At least its own address, as libbfd's size of 1. */
    return end > e->start ? end : e->start + 1;
}

static struct symextent *build(struct extent *v, size_t n)
{
    struct symextent *x = xcalloc(1, sizeof *x);
    qsort(v, n, sizeof *v, by_start);
    x->n = n;
    x->start = xmalloc(n * sizeof *x->start);
    x->reach = xmalloc(n * sizeof *x->reach);
    /* Ends first, from the last extent back (the next greater start is
     * known there), into reach; then the prefix maxima in place. */
    uint64_t next = 0;
    for (size_t i = n; i-- > 0;) {
        if (i + 1 < n && v[i + 1].start > v[i].start)
            next = v[i + 1].start;
        x->start[i] = v[i].start;
        x->reach[i] = v[i].code ? end_of(&v[i], next) : 0;
    }
    for (size_t i = 1; i < n; i++)
        if (x->reach[i] < x->reach[i - 1])
            x->reach[i] = x->reach[i - 1];
    return x;
}

static struct symextent *from_image(const struct image *im)
{
    struct extent *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < im->nsh; i++)
        if (im->sh[i].sh_type == SHT_SYMTAB || im->sh[i].sh_type == SHT_DYNSYM)
            add_table(im, &im->sh[i], &v, &n, &cap);
    size_t code = 0;
    for (size_t i = 0; i < n; i++)
        code += v[i].code;
    struct symextent *x = code ? build(v, n) : NULL;
    free(v);
    return x;
}

struct symextent *symextent_load(const char *path)
{
    struct stat st;
    struct image im;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    struct symextent *x =
        open_image(&im, p, size) == 0 ? from_image(&im) : NULL;
    munmap(p, size);
    return x;
}

int symextent_covers(const struct symextent *x, uint64_t vma)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) { /* the first start past VMA */
        size_t mid = lo + (hi - lo) / 2;
        if (x->start[mid] <= vma)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && x->reach[lo - 1] > vma;
}

void symextent_free(struct symextent *x)
{
    if (!x)
        return;
    free(x->start);
    free(x->reach);
    free(x);
}
