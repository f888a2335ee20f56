/* SPDX-License-Identifier: GPL-3.0-or-later */
/* frametab.c - see frametab.h. */
#define _GNU_SOURCE
#include "symbols/frametab.h"
#include "base/arena.h"
#include "symbols/dynsyms.h"
#include "base/real.h"
#include "base/fmt.h"
#include <dlfcn.h>
#include <libiberty/demangle.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static struct cmap frames = { .lock = SPINLOCK_INIT(LOCK_RANK_FRAMES) };
static atomic_uint code_epoch;

struct frame_key {
    uintptr_t addr;
    unsigned epoch;
};

unsigned frametab_epoch(void)
{
    return atomic_load_explicit(&code_epoch, memory_order_relaxed);
}

void frametab_new_epoch(void)
{
    atomic_fetch_add(&code_epoch, 1);
}

static uint64_t frame_hash(uintptr_t addr, unsigned epoch)
{
    uint64_t h = (addr ^ ((uint64_t)epoch << 48)) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 31);
}

static int frame_eq(const struct cmap_entry *e, const void *key)
{
    const struct frame *f = (const struct frame *)e;
    const struct frame_key *k = key;
    return f->addr == k->addr && f->epoch == k->epoch;
}

/* glibc's tr_where(): "FILE:(SYM+OFF)[0xADDR]", "FILE:[0xADDR]" or
 * "[0xADDR]", with ADDR relative to dli_fbase (absolute without dladdr). */
static const char *where_string(uintptr_t addr, const Dl_info *info, int found)
{
    const char *file = found ? info->dli_fname : NULL;
    const char *sym = found ? info->dli_sname : NULL;
    /* Any length: file names and mangled names are not bounded. */
    size_t size = (file ? strlen(file) + 1 : 0) + (sym ? strlen(sym) + 24 : 0) +
                  48;
    char *buf = arena_alloc(size), *p = buf;
    if (buf == NULL)
        return NULL;
    if (file) {
        p = stpcpy(p, file);
        *p++ = ':';
    }
    if (sym) {
        uintptr_t start = (uintptr_t)info->dli_saddr;
        *p++ = '(';
        p = stpcpy(p, sym);
        *p++ = addr >= start ? '+' : '-';
        p = fmt_hex(p, addr >= start ? addr - start : start - addr);
        *p++ = ')';
    }
    *p++ = '[';
    p = fmt_ptr(p, found ? addr - (uintptr_t)info->dli_fbase : addr);
    *p++ = ']';
    *p = '\0';
    return buf;
}

static const char *demangled(const char *name)
{
    char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
    if (d == NULL)
        return arena_strdup(name);
    const char *copy = arena_strdup(d);
    __libc_free(d); /* cplus_demangle malloc()ed it, guarded: glibc's */
    return copy;
}

static struct frame *resolve(uintptr_t addr, unsigned epoch)
{
    struct frame *f = arena_alloc(sizeof *f);
    if (f == NULL)
        return NULL;
    f->addr = addr;
    f->epoch = epoch;
    atomic_store_explicit(&f->checked, modmap_unload_gen(),
                          memory_order_relaxed);
    f->mod = modmap_find(addr);
    f->offset = f->mod ? addr - f->mod->bias : addr;
    Dl_info info;
    memset(&info, 0, sizeof info);
    int found = dynsyms_addr((void *)addr, f->mod, &info) != 0;
    if (found && info.dli_sname) {
        f->symbol = demangled(info.dli_sname);
        uintptr_t start = (uintptr_t)info.dli_saddr;
        f->symbol_offset = addr >= start ? addr - start : 0;
    }
    f->where = where_string(addr, &info, found);
    f->where_len = f->where ? strlen(f->where) : 0;
    return f;
}

/* The last frame this thread looked up: a free() in a loop asks for the
 * same caller again and again. */
static __thread struct frame *last_frame
    __attribute__((tls_model("initial-exec")));

int frametab_check(struct frame *f)
{
    unsigned gen = modmap_unload_gen();
    if (atomic_load_explicit(&f->checked, memory_order_relaxed) == gen)
        return 1;
    /* The address is live code (it is being unwound through or called
     * from): the module there now is either F's, loaded again, or
     * another one. */
    if (f->mod && atomic_load(&f->mod->unloaded) &&
        modmap_find(f->addr) != f->mod) {
        frametab_new_epoch();
        return 0;
    }
    atomic_store_explicit(&f->checked, gen, memory_order_relaxed);
    return 1;
}

static struct frame *lookup(uintptr_t addr)
{
    struct frame_key key = { addr, frametab_epoch() };
    uint64_t hash = frame_hash(addr, key.epoch);
    struct frame *f = (struct frame *)cmap_find(&frames, hash, frame_eq, &key);
    if (f == NULL) {
        f = resolve(addr, key.epoch);
        if (f == NULL)
            return NULL;
        f = (struct frame *)cmap_insert(&frames, &f->e, hash, frame_eq, &key);
    }
    return f;
}

struct frame *frametab_get(uintptr_t addr)
{
    struct frame *f = last_frame;
    if (f && f->addr == addr && f->epoch == frametab_epoch() &&
        atomic_load_explicit(&f->checked, memory_order_relaxed) ==
            modmap_unload_gen())
        return f;
    do
        f = lookup(addr);
    while (f && !frametab_check(f));
    last_frame = f;
    return f;
}

void frametab_lock_for_fork(void)
{
    spin_lock(&frames.lock);
}

void frametab_unlock_after_fork(void)
{
    spin_unlock(&frames.lock);
}
