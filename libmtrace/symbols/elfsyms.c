/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfsyms.c - see elfsyms.h.  Each module's file is mapped once and its
 * function symbols sorted by address; names are demangled on demand.
 */
#define _GNU_SOURCE
#include "symbols/elfsyms.h"
#include "base/sysfd.h"
#include "base/arena.h"
#include "base/real.h"
#include <elf.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MODULES 8192

struct module_syms {
    int loaded; /* looked at (whatever came of it) */
    struct elfsym *syms;
    size_t count;
};

static struct module_syms tables[MAX_MODULES];

/* Sorts by start, symbols of one start kept in table order (aliases: the
 * last one is found), as glibc's merge sort did: a stable radix sort, a
 * byte of the start a pass, only for the bytes in which starts differ.
 * glibc's debug file holds thousands of function symbols, and qsort's
 * comparisons took about a millisecond of every traced run that names a
 * frame of libc (bench/RESULTS.md, 2026-11-26). */
void elfsyms_sort(struct elfsym *syms, size_t n, struct elfsym *room)
{
    struct elfsym *from = syms, *to = room;
    uintptr_t differ = 0;
    for (size_t i = 1; i < n; i++)
        differ |= syms[i].start ^ syms[0].start;
    for (unsigned shift = 0; shift < 8 * sizeof(uintptr_t); shift += 8) {
        if (((differ >> shift) & 255) == 0)
            continue;
        size_t at[256] = { 0 };
        for (size_t i = 0; i < n; i++)
            at[(from[i].start >> shift) & 255]++;
        for (size_t b = 0, pos = 0; b < 256; b++) {
            size_t count = at[b];
            at[b] = pos;
            pos += count;
        }
        for (size_t i = 0; i < n; i++)
            to[at[(from[i].start >> shift) & 255]++] = from[i];
        struct elfsym *was = from;
        from = to;
        to = was;
    }
    if (from != syms)
        memcpy(syms, from, n * sizeof *syms);
}

/* The mapped file of PATH, or NULL; SIZE gets its length. */
static const unsigned char *map_file(const char *path, size_t *size)
{
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr))
        p = real_mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    sys_close(fd);
    if (p == MAP_FAILED)
        return NULL;
    *size = (size_t)st.st_size;
    return p;
}

static int valid_elf(const unsigned char *f, size_t size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
    return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
           eh->e_ident[EI_CLASS] == ELFCLASS64 &&
           eh->e_shentsize == sizeof(Elf64_Shdr) &&
           eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size;
}

/* Collects the defined function symbols of the SYMTAB section. */
static void collect(struct module_syms *t, const unsigned char *f, size_t size,
                    const Elf64_Shdr *symtab, const Elf64_Shdr *strtab)
{
    if (symtab->sh_offset + symtab->sh_size > size ||
        strtab->sh_offset + strtab->sh_size > size)
        return;
    const Elf64_Sym *sym = (const Elf64_Sym *)(f + symtab->sh_offset);
    size_t n = symtab->sh_size / sizeof *sym;
    /* Twice the room: the sort's second array follows the table (a page
     * mapped and unmapped for each module cost more than the sort). */
    t->syms = pages_map(2 * n * sizeof *t->syms + 1);
    if (t->syms == NULL)
        return;
    const char *names = (const char *)(f + strtab->sh_offset);
    for (size_t i = 0; i < n; i++) {
        if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC ||
            sym[i].st_shndx == SHN_UNDEF || sym[i].st_name >= strtab->sh_size)
            continue;
        t->syms[t->count++] = (struct elfsym){ sym[i].st_value, sym[i].st_size,
                                               names + sym[i].st_name };
    }
    elfsyms_sort(t->syms, t->count, t->syms + t->count);
}

/* Reads PATH's .symtab into T; 0 when the file has none. */
static int load_file(struct module_syms *t, const char *path)
{
    size_t size;
    const unsigned char *f = map_file(path, &size);
    if (f == NULL)
        return 0;
    if (valid_elf(f, size)) {
        const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_link < eh->e_shnum) {
                collect(t, f, size, &sh[i], &sh[sh[i].sh_link]);
                return 1;
            }
    }
    real_munmap((void *)f, size);
    return 0;
}

/* A stripped library's symbols live in its separate debug file, found by
 * build-id: /usr/lib/debug/.build-id/ab/cdef....debug */
static void load(struct module_syms *t, const struct module *mod)
{
    t->loaded = 1;
    if (load_file(t, mod->path) || strlen(mod->build_id) < 4)
        return;
    char path[256];
    snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%.2s/%s.debug",
             mod->build_id, mod->build_id + 2);
    load_file(t, path);
}

/* The last symbol starting at or before OFF. */
static const struct elfsym *find(const struct module_syms *t, uintptr_t off)
{
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->syms[mid].start <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct elfsym *s = &t->syms[lo - 1];
    return off < s->start + (s->size ? s->size : 1) ? s : NULL;
}

const char *elfsyms_lookup(struct module *mod, uintptr_t off,
                           uintptr_t *sym_off)
{
    if (mod == NULL || mod->id < 0 || mod->id >= MAX_MODULES)
        return NULL;
    struct module_syms *t = &tables[mod->id];
    if (!t->loaded)
        load(t, mod);
    const struct elfsym *s = find(t, off);
    if (s == NULL)
        return NULL;
    *sym_off = off - s->start;
    char *d = cplus_demangle(s->name, DMGL_PARAMS | DMGL_ANSI);
    if (d == NULL)
        return s->name;
    const char *copy = arena_strdup(d);
    __libc_free(d); /* cplus_demangle malloc()ed it, guarded: glibc's */
    return copy;
}

int elfsyms_address_of(struct module *mod, const char *name, uintptr_t *off)
{
    if (mod == NULL || mod->id < 0 || mod->id >= MAX_MODULES)
        return 0;
    struct module_syms *t = &tables[mod->id];
    if (!t->loaded)
        load(t, mod);
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->syms[i].name, name) == 0) {
            *off = t->syms[i].start;
            return 1;
        }
    return 0;
}
