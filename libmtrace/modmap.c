/* modmap.c - see modmap.h.  The table is append-only: readers scan it
 * without a lock (entries are complete before the count that publishes
 * them); writers, always inside a dl_iterate_phdr callback, hold
 * modmap_lock.  Lock order: loader lock, then modmap_lock, then arena.
 * GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "modmap.h"
#include "arena.h"
#include "spin.h"
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#define MODMAP_MAX 8192

static struct module *modules[MODMAP_MAX];
static atomic_int module_count;
static spinlock_t modmap_lock = SPINLOCK_INIT;
static const char *exe_path;

int modmap_count(void)
{
    return atomic_load_explicit(&module_count, memory_order_acquire);
}

struct module *modmap_get(int id)
{
    return id >= 0 && id < modmap_count() ? modules[id] : NULL;
}

static struct module *find_loaded(uintptr_t addr)
{
    for (int i = modmap_count() - 1; i >= 0; i--) {
        struct module *m = modules[i];
        if (addr >= m->lo && addr < m->hi && !atomic_load(&m->unloaded))
            return m;
    }
    return NULL;
}

const char *modmap_executable_path(void)
{
    if (exe_path == NULL) {
        char buf[4096];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = '\0';
        exe_path = arena_strdup(buf);
    }
    return exe_path ? exe_path : "";
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

static struct module *find_same(uintptr_t bias, uintptr_t lo)
{
    for (int i = modmap_count() - 1; i >= 0; i--) {
        struct module *m = modules[i];
        if (m->bias == bias && m->lo == lo && !atomic_load(&m->unloaded))
            return m;
    }
    return NULL;
}

static void add_module(struct dl_phdr_info *info, uintptr_t lo, uintptr_t hi)
{
    int n = modmap_count();
    if (n >= MODMAP_MAX)
        return;
    struct module *m = arena_alloc(sizeof *m);
    if (m == NULL)
        return;
    const char *name = info->dlpi_name;
    m->id = n;
    m->bias = info->dlpi_addr;
    m->lo = lo;
    m->hi = hi;
    m->path = (name && *name) ? arena_strdup(name) : modmap_executable_path();
    read_build_id(info, m->build_id);
    modules[n] = m;
    atomic_store_explicit(&module_count, n + 1, memory_order_release);
}

/* Records every module not known yet; flags the known ones in SEEN. */
static int scan_module(struct dl_phdr_info *info, size_t size, void *seen)
{
    (void)size;
    uintptr_t lo, hi;
    load_extent(info, &lo, &hi);
    if (lo >= hi)
        return 0;
    spin_lock(&modmap_lock);
    struct module *m = find_same(info->dlpi_addr, lo);
    if (m == NULL) {
        add_module(info, lo, hi);
        m = find_same(info->dlpi_addr, lo);
    }
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
    memset(seen, 0, sizeof seen);
    dl_iterate_phdr(scan_module, seen);
    for (int i = 0; i < n; i++)
        if (!seen[i] && !atomic_load(&modules[i]->unloaded)) {
            atomic_store(&modules[i]->unloaded, 1);
            gone++;
        }
    return gone;
}

void modmap_reset_after_fork(void)
{
    /* Entries are published whole, so the table itself is consistent. */
    spin_reset(&modmap_lock);
}
