/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfinfo.c - read the program headers of an ELF file (see elfinfo.h).
 * Only native-endian 32/64-bit files are understood; anything else is
 * reported as "no interpreter, no build-id", which only makes us more
 * cautious.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/elfinfo.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_PHDRS = 256, MAX_NOTE = 4096 };

static int read_at(int fd, void *buf, size_t n, off_t off)
{
    ssize_t got = pread(fd, buf, n, off);
    return got == (ssize_t)n ? 0 : -1;
}

static void hex_encode(const unsigned char *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Walk the notes of one PT_NOTE segment looking for NT_GNU_BUILD_ID. */
static void scan_notes(int fd, off_t off, size_t size, struct elf_info *info)
{
    unsigned char buf[MAX_NOTE];
    size_t pos = 0;

    if (size > sizeof buf)
        size = sizeof buf;
    if (read_at(fd, buf, size, off) != 0)
        return;
    while (pos + 12 <= size) {
        Elf64_Nhdr nh; /* same layout as Elf32_Nhdr */
        memcpy(&nh, buf + pos, sizeof nh);
        size_t name_at = pos + 12;
        size_t desc_at = name_at + ((nh.n_namesz + 3u) & ~3u);
        size_t next = desc_at + ((nh.n_descsz + 3u) & ~3u);
        if (next > size || next <= pos)
            return;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            memcmp(buf + name_at, "GNU", 4) == 0 &&
            nh.n_descsz <= BUILD_ID_MAX) {
            hex_encode(buf + desc_at, nh.n_descsz, info->build_id);
            return;
        }
        pos = next;
    }
}

struct phdr_common {
    uint32_t type;
    uint64_t offset, filesz;
};

static int read_phdr(int fd, int is64, off_t at, struct phdr_common *ph)
{
    if (is64) {
        Elf64_Phdr p;
        if (read_at(fd, &p, sizeof p, at) != 0)
            return -1;
        *ph = (struct phdr_common){ p.p_type, p.p_offset, p.p_filesz };
    } else {
        Elf32_Phdr p;
        if (read_at(fd, &p, sizeof p, at) != 0)
            return -1;
        *ph = (struct phdr_common){ p.p_type, p.p_offset, p.p_filesz };
    }
    return 0;
}

static void scan_phdrs(int fd, const unsigned char *ident,
                       struct elf_info *info)
{
    int is64 = ident[EI_CLASS] == ELFCLASS64;
    uint64_t phoff;
    unsigned phnum, phentsize;

    if (is64) {
        Elf64_Ehdr eh;
        if (read_at(fd, &eh, sizeof eh, 0) != 0)
            return;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else {
        Elf32_Ehdr eh;
        if (read_at(fd, &eh, sizeof eh, 0) != 0)
            return;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    }
    if (phnum > MAX_PHDRS ||
        phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
        return;
    for (unsigned i = 0; i < phnum; i++) {
        struct phdr_common ph;
        if (read_phdr(fd, is64, (off_t)(phoff + (uint64_t)i * phentsize),
                      &ph) != 0)
            return;
        if (ph.type == PT_INTERP)
            info->has_interp = 1;
        else if (ph.type == PT_NOTE && !info->build_id[0])
            scan_notes(fd, (off_t)ph.offset, ph.filesz, info);
    }
}

int elf_inspect(const char *path, struct elf_info *info)
{
    unsigned char ident[EI_NIDENT];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    memset(info, 0, sizeof *info);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    if (read_at(fd, ident, sizeof ident, 0) == 0 &&
        memcmp(ident, ELFMAG, SELFMAG) == 0 &&
        (ident[EI_CLASS] == ELFCLASS32 || ident[EI_CLASS] == ELFCLASS64) &&
        ident[EI_DATA] == ELFDATA2LSB) {
        info->is_elf = 1;
        scan_phdrs(fd, ident, info);
    }
    close(fd);
    return 0;
}
