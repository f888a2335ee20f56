/* SPDX-License-Identifier: GPL-3.0-or-later */
/* util.c - helpers shared by the unit suites. */
#define _GNU_SOURCE
#include "unit.h"
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t ut_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

void ut_mkdtemp(char *out, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, size, "%s/mtrace-unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(out));
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void ut_rmtree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *ut_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

void ut_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

struct object_query {
    uintptr_t addr, bias;
    char *name;
    size_t size;
    int found;
};

static int object_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct object_query *q = arg;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->addr >= start &&
            q->addr < start + ph->p_memsz) {
            q->bias = info->dlpi_addr;
            snprintf(q->name, q->size, "%s",
                     info->dlpi_name ? info->dlpi_name : "");
            q->found = 1;
            return 1;
        }
    }
    return 0;
}

int ut_object_of(uintptr_t addr, uintptr_t *bias, char *name, size_t size)
{
    char dummy[8];
    struct object_query q = { addr, 0, name ? name : dummy,
                              name ? size : sizeof dummy, 0 };
    dl_iterate_phdr(object_cb, &q);
    if (bias)
        *bias = q.bias;
    return q.found;
}

/* Scans one SHT_NOTE section's bytes for the GNU build-id note. */
static int note_build_id(const unsigned char *p, size_t n, char *hex,
                         size_t size)
{
    size_t off = 0;
    while (off + sizeof(Elf64_Nhdr) <= n) {
        const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(p + off);
        size_t name_off = off + sizeof *nh;
        size_t desc_off = name_off + ((nh->n_namesz + 3) & ~3u);
        if (desc_off + nh->n_descsz > n)
            return 0;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
            memcmp(p + name_off, "GNU", 4) == 0 && 2 * nh->n_descsz < size) {
            for (size_t i = 0; i < nh->n_descsz; i++)
                sprintf(hex + 2 * i, "%02x", p[desc_off + i]);
            return 1;
        }
        off = desc_off + ((nh->n_descsz + 3) & ~3u);
    }
    return 0;
}

int ut_file_build_id(const char *path, char *hex, size_t size)
{
    size_t len;
    unsigned char *img = (unsigned char *)ut_slurp(path, &len);
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    hex[0] = '\0';
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len) {
        free(img);
        return -1;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_NOTE &&
            sh[i].sh_offset + sh[i].sh_size <= len &&
            note_build_id(img + sh[i].sh_offset, sh[i].sh_size, hex, size))
            break;
    free(img);
    return 0;
}

void ut_exe_dir(char *out, size_t size)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    ck_assert_int_gt(n, 0);
    path[n] = '\0';
    snprintf(out, size, "%s", dirname(path));
}

/* noinline and exported: real, distinct code addresses for the stack and
 * frame tables. */
__attribute__((noinline)) int ut_probe_a(int x)
{
    volatile int acc = x; /* a body long enough for interior offsets */
    for (int i = 0; i < 7; i++)
        acc = acc * 7 + 1 + i;
    return acc;
}

__attribute__((noinline)) int ut_probe_b(int x)
{
    volatile int acc = x; /* a body long enough for interior offsets */
    for (int i = 0; i < 11; i++)
        acc = acc * 11 + 2 + i;
    return acc;
}

__attribute__((noinline)) int ut_probe_c(int x)
{
    volatile int acc = x; /* a body long enough for interior offsets */
    for (int i = 0; i < 13; i++)
        acc = acc * 13 + 3 + i;
    return acc;
}

/* The runner built with ASan or TSan (make sanitize): libmtrace's core
 * frees what libiberty's demangler malloc()ed with __libc_free.  In a
 * traced program that malloc is glibc's (the tracer calls it guarded), but
 * in a sanitized runner malloc is the sanitizer's, and glibc's free would
 * be handed a block it never made.  This definition wins for the core
 * objects linked into the runner. */
#if UT_SANITIZED
void __libc_free(void *p);
void __libc_free(void *p)
{
    free(p);
}
#endif
