/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dynsyms.c - see dynsyms.h.
 *
 * glibc's dladdr (elf/dl-addr.c) visits the symbols its GNU hash table
 * reaches, bucket by bucket, and keeps the one with the highest value that
 * contains the address, the first one visited among equals.  A symbol of
 * size 0 contains only its own address.  The table
 * below holds the same symbols in the same visiting order, sorted stably
 * by value; the answer is then the highest-valued covering entry, the
 * earliest among equals, and REACH (the furthest end of an entry and all
 * before it) tells when no lower entry can cover the address.
 */
#define _GNU_SOURCE
#include "symbols/dynsyms.h"
#include "base/arena.h"
#include "symbols/elfsyms.h"
#include "symbols/modmap.h"
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* glibc 2.35 and later; without it, dladdr() answers. */
#pragma weak _dl_find_object

struct dynsyms {
    size_t n, bytes;
    struct elfsym *sym; /* start: st_value, size: at least 1, name */
    uintptr_t *reach;   /* the largest start + size of sym[0..i] */
};

/* dladdr() names the main program by argv[0] as it is at the time of the
 * call.  glibc calls the functions of .init_array with argc, argv and
 * envp; a constructor attribute would not do: with link-time optimisation
 * GCC folds the constructors into one function without arguments. */
static char **main_argv;

static void keep_argv(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)envp;
    main_argv = argv;
}

__attribute__((section(".init_array"), used)) static void (
    *keep_argv_entry)(int, char **, char **) = keep_argv;

/* The dynamic section's addresses.  glibc adds l_addr to them in place
 * unless the section is read-only (the vDSO's), where they stay offsets. */
static uintptr_t dyn_ptr(const struct link_map *l, ElfW(Addr) p)
{
    return p < l->l_addr ? p + l->l_addr : p;
}

struct dyn {
    const ElfW(Sym) *symtab;
    const char *strtab;
    size_t strsz;
    const uint32_t *gnu_hash;
};

static int read_dynamic(const struct link_map *l, struct dyn *d)
{
    memset(d, 0, sizeof *d);
    if (l->l_ld == NULL)
        return 0;
    for (const ElfW(Dyn) *e = l->l_ld; e->d_tag != DT_NULL; e++) {
        if (e->d_tag == DT_SYMTAB)
            d->symtab = (const ElfW(Sym) *)dyn_ptr(l, e->d_un.d_ptr);
        else if (e->d_tag == DT_STRTAB)
            d->strtab = (const char *)dyn_ptr(l, e->d_un.d_ptr);
        else if (e->d_tag == DT_STRSZ)
            d->strsz = e->d_un.d_val;
        else if (e->d_tag == DT_GNU_HASH)
            d->gnu_hash = (const uint32_t *)dyn_ptr(l, e->d_un.d_ptr);
    }
    return d->symtab && d->strtab && d->gnu_hash;
}

/* dladdr's test of a symbol, but for the address (elf/dl-addr.c). */
static int considered(const ElfW(Sym) *s, size_t strsz)
{
    return (s->st_shndx != SHN_UNDEF || s->st_value != 0) &&
           s->st_shndx != SHN_ABS && ELF64_ST_TYPE(s->st_info) != STT_TLS &&
           s->st_name < strsz;
}

/* Calls VISIT on every symbol the GNU hash table reaches, in dladdr's
 * order; returns how many it was called for. */
static size_t each_hashed(const struct dyn *d,
                          void (*visit)(const struct dyn *, uint32_t, void *),
                          void *arg)
{
    const uint32_t *h = d->gnu_hash;
    uint32_t nbuckets = h[0], symoffset = h[1], bloom_words = h[2];
    const uint32_t *buckets = h + 4 + bloom_words * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    size_t count = 0;
    for (uint32_t b = 0; b < nbuckets; b++) {
        uint32_t i = buckets[b];
        if (i == 0 || i < symoffset)
            continue;
        for (;; i++) {
            if (considered(&d->symtab[i], d->strsz)) {
                if (visit)
                    visit(d, i, arg);
                count++;
            }
            if (chain[i - symoffset] & 1)
                break;
        }
    }
    return count;
}

static void add_symbol(const struct dyn *d, uint32_t i, void *arg)
{
    struct dynsyms *t = arg;
    const ElfW(Sym) *s = &d->symtab[i];
    struct elfsym *e = &t->sym[t->n++];
    e->start = s->st_value;
    e->size = s->st_size ? s->st_size : 1;
    e->name = d->strtab + s->st_name;
}

/* The sorted table of L's symbols, or NULL (no memory, no GNU hash). */
static struct dynsyms *build(const struct link_map *l)
{
    struct dyn d;
    if (!read_dynamic(l, &d))
        return NULL;
    size_t n = each_hashed(&d, NULL, NULL);
    size_t bytes = sizeof(struct dynsyms) +
                   n * (sizeof(uintptr_t) + sizeof(struct elfsym));
    size_t room_bytes = (n ? n : 1) * sizeof(struct elfsym);
    struct dynsyms *t = pages_map(bytes);
    struct elfsym *room = pages_map(room_bytes);
    if (t == NULL || room == NULL) {
        if (t)
            pages_unmap(t, bytes);
        if (room)
            pages_unmap(room, room_bytes);
        return NULL;
    }
    t->bytes = bytes;
    t->reach = (uintptr_t *)(t + 1);
    t->sym = (struct elfsym *)(t->reach + n);
    each_hashed(&d, add_symbol, t);
    /* Stable: equal values keep dladdr's visiting order. */
    elfsyms_sort(t->sym, t->n, room);
    pages_unmap(room, room_bytes);
    uintptr_t reach = 0;
    for (size_t i = 0; i < t->n; i++) {
        uintptr_t end = t->sym[i].start + t->sym[i].size;
        if (end < t->sym[i].start)
            end = UINTPTR_MAX;
        reach = end > reach ? end : reach;
        t->reach[i] = reach;
    }
    return t;
}

/* MOD's table, made on first use.  Two threads may both make it: the
 * second one's is dropped. */
static struct dynsyms *table_of(struct module *mod, const struct link_map *l)
{
    struct dynsyms *t = atomic_load_explicit(&mod->dynsyms,
                                             memory_order_acquire);
    if (t)
        return t;
    struct dynsyms *mine = build(l), *none = NULL;
    if (mine == NULL)
        return NULL;
    if (atomic_compare_exchange_strong_explicit(&mod->dynsyms, &none, mine,
                                                memory_order_acq_rel,
                                                memory_order_acquire))
        return mine;
    pages_unmap(mine, mine->bytes);
    return none;
}

/* The entry dladdr would answer with for module offset OFF, or NULL. */
static const struct elfsym *lookup(const struct dynsyms *t, uintptr_t off)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->sym[mid].start <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct elfsym *best = NULL;
    for (size_t i = lo; i-- > 0 && t->reach[i] > off;) {
        const struct elfsym *e = &t->sym[i];
        if (best && e->start != best->start)
            break;
        if (off - e->start < e->size)
            best = e;
    }
    return best;
}

/* dladdr()'s file name for L: the main program's is argv[0]. */
static const char *file_name(const struct link_map *l)
{
    if (l->l_name[0] == '\0' && l->l_prev == NULL)
        return main_argv ? main_argv[0] : NULL;
    return l->l_name;
}

/* dladdr() where it may take the loader's lock (modmap_no_loader_here). */
static int loader_dladdr(const void *addr, Dl_info *info)
{
    return modmap_loader_here() ? dladdr(addr, info) : 0;
}

int dynsyms_addr(const void *addr, struct module *mod, Dl_info *info)
{
    struct dl_find_object found;
    if (mod == NULL || _dl_find_object == NULL ||
        _dl_find_object((void *)addr, &found) != 0)
        return loader_dladdr(addr, info);
    const struct link_map *l = found.dlfo_link_map;
    const char *fname = file_name(l);
    if (l->l_addr != mod->bias || fname == NULL)
        return loader_dladdr(addr, info);
    struct dynsyms *t = table_of(mod, l);
    if (t == NULL)
        return loader_dladdr(addr, info);
    const struct elfsym *e = lookup(t, (uintptr_t)addr - l->l_addr);
    info->dli_fname = fname;
    info->dli_fbase = found.dlfo_map_start;
    info->dli_sname = e ? e->name : NULL;
    info->dli_saddr = e ? (void *)(l->l_addr + e->start) : NULL;
    return 1;
}
