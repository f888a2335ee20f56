/* SPDX-License-Identifier: GPL-3.0-or-later */
/* modmap.c - see modmap.h.  The table of records is append-only: readers
 * look at it without a lock (a record is complete before the count that
 * publishes it); writers, always inside a dl_iterate_phdr callback or
 * with what _dl_find_object gave, hold modmap_lock.  Lock order: loader
 * lock, then modmap_lock, then arena.
 *
 * A module unloaded and loaded again at the same place (same bias and
 * extent, build-id and path: a plugin reloaded in a loop) gets its record
 * back instead of a new one, so records, frames and stacks stay bounded
 * by the code the program really runs, and lookups by address go through
 * a sorted index of the loaded modules (binary search) whatever the
 * history.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "symbols/modmap.h"
#include "base/arena.h"
#include "symbols/maps.h"
#include "base/spin.h"
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#define MODMAP_MAX 8192

static struct module *modules[MODMAP_MAX];
static atomic_int module_count;
static spinlock_t modmap_lock = SPINLOCK_INIT(LOCK_RANK_MODMAP);
/* Set once, lazily, by whichever thread asks first; atomic because two
 * threads may record their first stacks at once. */
static _Atomic(const char *) exe_path;
static atomic_uint unload_gen;
static int in_fork_child; /* modmap_note_fork_child() */

/* The loaded modules sorted by start, for lookups by address.  Rebuilt by
 * writers (modmap_lock held) in place; readers retry while the sequence
 * number is odd or moved (a seqlock: no reader ever waits on a lock). */
static struct {
    atomic_uint seq;
    int n;
    struct module *by_lo[MODMAP_MAX];
} loaded_index;

int modmap_count(void)
{
    return atomic_load_explicit(&module_count, memory_order_acquire);
}

struct module *modmap_get(int id)
{
    return id >= 0 && id < modmap_count() ? modules[id] : NULL;
}

unsigned modmap_unload_gen(void)
{
    return atomic_load_explicit(&unload_gen, memory_order_acquire);
}

/* modmap_lock held: the index from the records. */
static void rebuild_index(void)
{
    atomic_fetch_add_explicit(&loaded_index.seq, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    int n = 0;
    for (int i = 0; i < modmap_count(); i++) {
        struct module *m = modules[i];
        if (atomic_load(&m->unloaded))
            continue;
        int k = n++;
        while (k > 0 && loaded_index.by_lo[k - 1]->lo > m->lo) {
            loaded_index.by_lo[k] = loaded_index.by_lo[k - 1];
            k--;
        }
        loaded_index.by_lo[k] = m;
    }
    loaded_index.n = n;
    atomic_fetch_add_explicit(&loaded_index.seq, 1, memory_order_release);
}

/* The last loaded module starting at or before ADDR, if ADDR is in it. */
static struct module *search_index(uintptr_t addr)
{
    int lo = 0, hi = loaded_index.n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (loaded_index.by_lo[mid]->lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    struct module *m = lo > 0 ? loaded_index.by_lo[lo - 1] : NULL;
    return m && addr < m->hi ? m : NULL;
}

static struct module *find_loaded(uintptr_t addr)
{
    for (;;) {
        unsigned seq = atomic_load_explicit(&loaded_index.seq,
                                            memory_order_acquire);
        if (seq & 1) {
            sched_yield();
            continue;
        }
        struct module *m = search_index(addr);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&loaded_index.seq, memory_order_relaxed) ==
            seq)
            return m && !atomic_load(&m->unloaded) ? m : NULL;
    }
}

const char *modmap_executable_path(void)
{
    const char *path = atomic_load_explicit(&exe_path, memory_order_acquire);
    if (path == NULL) {
        char buf[4096];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = '\0';
        const char *mine = arena_strdup(buf);
        if (mine == NULL)
            return "";
        /* A thread that loses the race uses the winner's copy (the arena
         * keeps the loser's few bytes), so every module record and report
         * line shares one pointer, which add_module() relies on. */
        if (!atomic_compare_exchange_strong_explicit(
                &exe_path, &path, mine, memory_order_acq_rel,
                memory_order_acquire))
            return path;
        return mine;
    }
    return path;
}

static void hex_bytes(char *out, const unsigned char *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 0xf];
    }
    out[2 * n] = '\0';
}

/* The GNU build-id note, read from the mapped PT_NOTE segments. */
static void read_build_id(struct dl_phdr_info *info, char *out)
{
    out[0] = '\0';
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        const char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *nh;
            const char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz <= BUILD_ID_HEX_MAX / 2 &&
                desc + nh->n_descsz <= end) {
                hex_bytes(out, (const unsigned char *)desc, nh->n_descsz);
                return;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static void load_extent(struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
    *lo = UINTPTR_MAX;
    *hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < *lo)
            *lo = start;
        if (start + ph->p_memsz > *hi)
            *hi = start + ph->p_memsz;
    }
}

/* The path a module was loaded by, made absolute when the loader knows
 * it by a relative name (dlopen("./plugin.so")): the file mapped at the
 * module's start, as /proc/self/maps names it, so the checker finds it
 * from any directory.  NAME is returned when that cannot be learnt. */
static const char *absolute_path(const char *name, uintptr_t lo, char *buf,
                                 size_t size)
{
    if (name[0] == '/' || maps_path_at(lo, buf, size) != 0)
        return name;
    return buf;
}

/* The record for a module with this extent, build-id and path: a loaded
 * one, or an unloaded one that the module is the same as (a reload at the
 * same place). */
static struct module *find_same(uintptr_t bias, uintptr_t lo, uintptr_t hi,
                                const char *build_id, const char *path)
{
    for (int i = modmap_count() - 1; i >= 0; i--) {
        struct module *m = modules[i];
        if (m->bias != bias || m->lo != lo)
            continue;
        if (!atomic_load(&m->unloaded))
            return m;
        if (m->hi == hi && strcmp(m->build_id, build_id) == 0 &&
            strcmp(m->path, path) == 0) {
            atomic_store(&m->unloaded, 0);
            rebuild_index();
            return m;
        }
    }
    return NULL;
}

static struct module *add_module(uintptr_t bias, uintptr_t lo, uintptr_t hi,
                                 const char *build_id, const char *path)
{
    int n = modmap_count();
    if (n >= MODMAP_MAX)
        return NULL;
    struct module *m = arena_alloc(sizeof *m);
    if (m == NULL)
        return NULL;
    m->id = n;
    m->bias = bias;
    m->lo = lo;
    m->hi = hi;
    const char *exe = atomic_load_explicit(&exe_path, memory_order_relaxed);
    m->path = path == exe ? path : arena_strdup(path);
    strcpy(m->build_id, build_id);
    atomic_init(&m->dynsyms, NULL);
    modules[n] = m;
    atomic_store_explicit(&module_count, n + 1, memory_order_release);
    rebuild_index();
    return m;
}

/* Records every module not known yet; flags the known ones in SEEN. */
static int scan_module(struct dl_phdr_info *info, size_t size, void *seen)
{
    (void)size;
    uintptr_t lo, hi;
    char build_id[BUILD_ID_HEX_MAX + 1], abs[4096];
    load_extent(info, &lo, &hi);
    if (lo >= hi)
        return 0;
    read_build_id(info, build_id);
    const char *name = info->dlpi_name;
    const char *path = (name && *name)
                           ? absolute_path(name, lo, abs, sizeof abs)
                           : modmap_executable_path();
    spin_lock(&modmap_lock);
    struct module *m = find_same(info->dlpi_addr, lo, hi, build_id, path);
    if (m == NULL)
        m = add_module(info->dlpi_addr, lo, hi, build_id, path);
    if (m && seen)
        ((unsigned char *)seen)[m->id] = 1;
    spin_unlock(&modmap_lock);
    return 0;
}

/* The module of ADDR through glibc's lock-free _dl_find_object, its
 * program headers read from the ELF header it maps at its start.  Returns
 * 0 when that cannot say (the vDSO, an odd layout).  Unlike
 * dl_iterate_phdr it takes no loader lock, which glibc 2.36 leaves held in
 * a fork child if another thread had it at fork time. */
static int scan_by_address(uintptr_t addr)
{
    struct dl_find_object found;
    if (_dl_find_object((void *)addr, &found) != 0 ||
        found.dlfo_link_map == NULL)
        return 0;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)found.dlfo_map_start;
    uintptr_t size = (uintptr_t)found.dlfo_map_end -
                     (uintptr_t)found.dlfo_map_start;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_phentsize != sizeof(ElfW(Phdr)) ||
        eh->e_phoff + (uintptr_t)eh->e_phnum * sizeof(ElfW(Phdr)) > size)
        return 0;
    struct dl_phdr_info info;
    memset(&info, 0, sizeof info);
    info.dlpi_addr = found.dlfo_link_map->l_addr;
    info.dlpi_name = found.dlfo_link_map->l_name;
    info.dlpi_phdr = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    info.dlpi_phnum = eh->e_phnum;
    scan_module(&info, sizeof info, NULL);
    return 1;
}

struct module *modmap_find(uintptr_t addr)
{
    struct module *m = find_loaded(addr);
    if (m)
        return m;
    if (scan_by_address(addr) && (m = find_loaded(addr)) != NULL)
        return m;
    if (!modmap_loader_list_usable())
        return NULL; /* what _dl_find_object cannot name stays unnamed */
    dl_iterate_phdr(scan_module, NULL);
    return find_loaded(addr);
}

int modmap_mark_unloaded(void)
{
    /* On this thread's stack: no lock that a dlclose() called from a
     * destructor (under the loader lock) could wait for. */
    unsigned char seen[MODMAP_MAX];
    int gone = 0;
    /* Only modules known before the scan can be judged by it. */
    int n = modmap_count();
    if (!modmap_loader_list_usable())
        return 0; /* records stay as they are: frames checked anew keep them */
    memset(seen, 0, sizeof seen);
    dl_iterate_phdr(scan_module, seen);
    spin_lock(&modmap_lock);
    for (int i = 0; i < n; i++)
        if (!seen[i] && !atomic_load(&modules[i]->unloaded)) {
            atomic_store(&modules[i]->unloaded, 1);
            gone++;
        }
    if (gone) {
        rebuild_index();
        atomic_fetch_add(&unload_gen, 1);
    }
    spin_unlock(&modmap_lock);
    return gone;
}

void modmap_reset_after_fork(void)
{
    /* Entries are published whole, so the table itself is consistent. */
    spin_reset(&modmap_lock);
}

void modmap_note_fork_child(void)
{
    in_fork_child = 1;
}

static __thread char no_loader_here __attribute__((tls_model("initial-exec")));

void modmap_no_loader_here(void)
{
    no_loader_here = 1;
}

int modmap_loader_here(void)
{
    return !no_loader_here;
}

int modmap_loader_list_usable(void)
{
    return !in_fork_child && !no_loader_here;
}
