/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symindex.c - function symbols sorted by address (see symindex.h).
 *
 * libbfd (2.40, Debian 12) answers a lookup without debug information
 * with one pass over the symbol table in table order, taking a candidate
 * that starts at or before OFFSET when it starts later than the best so
 * far, or at the same address and is longer.  So the answer is the
 * candidate with the highest start <= OFFSET, the longest of those, the
 * first listed of those: the index keeps that one symbol per address,
 * sorted, and finds it by binary search.  Its size does not matter: past
 * its end, libbfd still names it.  (libbfd remembers its last answer and
 * gives it again for any address inside that symbol without a pass, even
 * where a nested symbol starts: the index gives what the pass gives, as
 * addr2line does for one address.)  tests/checker/unit/symindex.c checks
 * the index against the installed libbfd, byte by byte.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define PACKAGE "mtrace-check" /* bfd.h insists on a config.h */
#define PACKAGE_VERSION "1"
#include <bfd.h>

#include "symbolize/symindex.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* libbfd's own test of "may SYM be a function in SEC, and how long":
 * exported by libbfd but declared only in its private elf-bfd.h.  The x86
 * backends keep this generic version, so the index takes exactly libbfd's
 * candidates: no section, file, object or TLS symbols, no annobin
 * markers, and a size of 1 for an st_size of 0. */
bfd_size_type _bfd_elf_maybe_function_sym(const asymbol *sym, asection *sec,
                                          bfd_vma *code_off);

struct entry {
    const asection *sec;
    bfd_vma off;        /* in the section, as libbfd's lookups take it */
    bfd_size_type size; /* never 0 */
    size_t order;       /* position in the table: libbfd's pass order */
    const char *name;
    const char *file; /* the STT_FILE name libbfd pairs with it, or NULL */
};

struct symindex {
    struct entry *e;
    size_t n;
};

/* ---- which images ---------------------------------------------------- */

/* Sections any of libbfd's line readers (DWARF 2+, DWARF 1, stabs) would
 * use; prefixes, to err on the side of keeping libbfd. */
static int is_debug_section(const char *name)
{
    static const char *const prefixes[] = { ".debug", ".zdebug", ".stab",
                                            ".gnu.linkonce.wi." };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* libbfd's DWARF reader follows the build-id and .gnu_debuglink to a
 * separate debug file under its configured directory: /usr/lib/debug
 * upstream, /usr/lib/<triplet>/debug in Debian's build (the string its
 * DWARF reader passes).  Any debug file found under either keeps libbfd's
 * answers. */
static const char *const debug_dirs[] = {
    "/usr/lib/debug",
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu/debug",
#elif defined(__i386__)
    "/usr/lib/i386-linux-gnu/debug",
#endif
};

static int has_separate_debug(bfd *abfd)
{
    for (size_t i = 0; i < sizeof debug_dirs / sizeof debug_dirs[0]; i++) {
        char *path = bfd_follow_build_id_debuglink(abfd, debug_dirs[i]);
        if (!path)
            path = bfd_follow_gnu_debuglink(abfd, debug_dirs[i]);
        if (path) {
            free(path);
            return 1;
        }
    }
    return 0;
}

int symindex_applies(bfd *abfd)
{
    if (bfd_get_flavour(abfd) != bfd_target_elf_flavour ||
        bfd_get_arch(abfd) != bfd_arch_i386)
        return 0;
    for (asection *sec = abfd->sections; sec; sec = sec->next)
        if (is_debug_section(bfd_section_name(sec)))
            return 0;
    return !has_separate_debug(abfd);
}

/* ---- building ---------------------------------------------------------- */

/* libbfd's file-name rule: a symbol takes the last STT_FILE symbol before
 * it, except a global one when that file symbol came after other symbols
 * (ld -r output, where a global's file cannot be known). */
struct file_pass {
    const asymbol *file;
    enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state;
};

/* Advances the pass over SYM; 1 when SYM is a file symbol. */
static int file_pass_step(struct file_pass *fp, const asymbol *sym)
{
    if (sym->flags & BSF_FILE) {
        fp->file = sym;
        if (fp->state == SYMBOL_SEEN)
            fp->state = FILE_AFTER_SYMBOL;
        return 1;
    }
    if (fp->state == NOTHING_SEEN)
        fp->state = SYMBOL_SEEN;
    return 0;
}

static const char *file_pass_name(const struct file_pass *fp,
                                  const asymbol *sym)
{
    if (!fp->file ||
        (!(sym->flags & BSF_LOCAL) && fp->state == FILE_AFTER_SYMBOL))
        return NULL;
    return bfd_asymbol_name(fp->file);
}

/* By section and address; at one address, libbfd's choice first: the
 * longest, then the first listed. */
static int entry_cmp(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    if (a->sec->index != b->sec->index)
        return a->sec->index < b->sec->index ? -1 : 1;
    if (a->off != b->off)
        return a->off < b->off ? -1 : 1;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Keeps the first entry of each (section, address): the others never
 * answer. */
static void keep_chosen(struct symindex *ix)
{
    size_t kept = 0;
    for (size_t i = 0; i < ix->n; i++)
        if (kept == 0 || ix->e[i].sec != ix->e[kept - 1].sec ||
            ix->e[i].off != ix->e[kept - 1].off)
            ix->e[kept++] = ix->e[i];
    ix->n = kept;
}

struct symindex *symindex_build(asymbol **syms)
{
    struct symindex *ix = xcalloc(1, sizeof *ix);
    struct file_pass fp = { NULL, NOTHING_SEEN };
    size_t cap = 0;

    for (size_t i = 0; syms && syms[i]; i++) {
        const asymbol *sym = syms[i];
        bfd_vma off;
        if (file_pass_step(&fp, sym))
            continue;
        bfd_size_type size = _bfd_elf_maybe_function_sym(sym, sym->section,
                                                         &off);
        if (size == 0)
            continue;
        if (ix->n == cap) {
            cap = cap ? 2 * cap : 256;
            ix->e = xrealloc(ix->e, cap * sizeof *ix->e);
        }
        ix->e[ix->n++] = (struct entry){
            .sec = sym->section,
            .off = off,
            .size = size,
            .order = i,
            .name = bfd_asymbol_name(sym),
            .file = file_pass_name(&fp, sym),
        };
    }
    if (ix->n)
        qsort(ix->e, ix->n, sizeof *ix->e, entry_cmp);
    keep_chosen(ix);
    return ix;
}

void symindex_free(struct symindex *ix)
{
    if (!ix)
        return;
    free(ix->e);
    free(ix);
}

/* ---- lookup ------------------------------------------------------------ */

/* The first entry past OFFSET of SEC, in (section, address) order. */
static size_t upper_bound(const struct symindex *ix, const asection *sec,
                          bfd_vma offset)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct entry *e = &ix->e[mid];
        if (e->sec->index < sec->index || (e->sec == sec && e->off <= offset))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int symindex_find(const struct symindex *ix, const asection *sec,
                  uint64_t offset, const char **func, const char **file)
{
    size_t hi = upper_bound(ix, sec, offset);
    if (hi == 0 || ix->e[hi - 1].sec != sec)
        return 0;
    *func = ix->e[hi - 1].name;
    *file = ix->e[hi - 1].file;
    return 1;
}
