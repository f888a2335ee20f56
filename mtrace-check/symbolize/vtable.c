/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vtable.c - see vtable.h.  The file is mapped and its section headers
 * read directly (64-bit little-endian ELF, as libmtrace writes logs on
 * x86-64 only); a few lookups per report, each a pass over one symbol
 * table.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/vtable.h"
#include "symbolize/demangle.h"
#include "symbolize/elfinfo.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct image {
    const unsigned char *p;
    size_t n;
};

static int in_file(const struct image *im, uint64_t off, uint64_t len)
{
    return off <= im->n && len <= im->n - off;
}

/* The "_ZTV" symbol of table SH whose extent holds OFF, or NULL. */
static const char *search(const struct image *im, const Elf64_Shdr *sh,
                          const Elf64_Shdr *shdrs, uint16_t nsec, uint64_t off)
{
    if (sh->sh_link >= nsec || sh->sh_entsize != sizeof(Elf64_Sym) ||
        !in_file(im, sh->sh_offset, sh->sh_size))
        return NULL;
    const Elf64_Shdr *str = &shdrs[sh->sh_link];
    if (!in_file(im, str->sh_offset, str->sh_size) || str->sh_size == 0)
        return NULL;
    const char *names = (const char *)im->p + str->sh_offset;
    const Elf64_Sym *s = (const void *)(im->p + sh->sh_offset);
    for (size_t i = 0, n = sh->sh_size / sizeof *s; i < n; i++) {
        if (ELF64_ST_TYPE(s[i].st_info) != STT_OBJECT || s[i].st_size == 0 ||
            off < s[i].st_value || off - s[i].st_value >= s[i].st_size ||
            s[i].st_name >= str->sh_size)
            continue;
        const char *name = names + s[i].st_name;
        if (memchr(name, 0, str->sh_size - s[i].st_name) &&
            strncmp(name, "_ZTV", 4) == 0)
            return name;
    }
    return NULL;
}

static const char *find_symbol(const struct image *im, uint64_t off)
{
    const Elf64_Ehdr *eh = (const void *)im->p;
    if (im->n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return NULL;
    const Elf64_Shdr *sh = (const void *)(im->p + eh->e_shoff);
    const char *found = NULL;
    for (uint32_t want = SHT_SYMTAB; !found; want = SHT_DYNSYM) {
        for (uint16_t i = 0; i < eh->e_shnum && !found; i++)
            if (sh[i].sh_type == want)
                found = search(im, &sh[i], sh, eh->e_shnum, off);
        if (want == SHT_DYNSYM)
            break;
    }
    return found;
}

/* "vtable for shop::Gadget" -> "shop::Gadget". */
static char *class_of(const char *symbol)
{
    static const char prefix[] = "vtable for ";
    char *d = demangle_name(symbol);
    if (d == NULL || strncmp(d, prefix, sizeof prefix - 1) != 0) {
        free(d);
        return NULL;
    }
    memmove(d, d + sizeof prefix - 1, strlen(d) - (sizeof prefix - 1) + 1);
    return d;
}

char *vtable_class(const char *path, const char *build_id, uint64_t off)
{
    struct elf_info info;
    struct stat st;
    if (path == NULL || elf_inspect(path, &info) != 0 || !info.is_elf ||
        (build_id && *build_id && strcmp(build_id, info.build_id) != 0))
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *map = fstat(fd, &st) == 0 && st.st_size > 0
                    ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
                           fd, 0)
                    : MAP_FAILED;
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    struct image im = { map, (size_t)st.st_size };
    const char *sym = find_symbol(&im, off);
    char *cls = sym ? class_of(sym) : NULL;
    munmap(map, im.n);
    return cls;
}
