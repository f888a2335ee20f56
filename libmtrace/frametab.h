/* frametab.h - what is known about each distinct code address seen in a
 * stack: its module and offset, its symbol (demangled), and glibc's WHERE
 * string for it.  Resolved once per address (dladdr, module map and
 * demangler are slow and take the loader lock), outside every tracer lock.
 * GPL-3.0-or-later. */
#ifndef MT_FRAMETAB_H
#define MT_FRAMETAB_H
#include "cmap.h"
#include "modmap.h"
#include <stdint.h>

struct frame {
    struct cmap_entry e;
    uintptr_t addr;
    unsigned epoch;     /* code epoch at resolution (see frametab_new_epoch) */
    struct module *mod; /* NULL: outside every known module */
    uintptr_t offset;   /* addr - mod->bias, or addr without a module */
    const char *symbol; /* demangled; NULL when dladdr found none */
    uintptr_t symbol_offset;
    const char *where; /* glibc's "FILE:(SYM+OFF)[0xADDR]"; NULL: none */
    size_t where_len;
    unsigned emitted_gen; /* log writer's: last log holding its #f record */
};

/* The frame for ADDR, resolving it on first sight.  NULL only when out of
 * memory.  May call dladdr/dl_iterate_phdr: no tracer lock may be held. */
struct frame *frametab_get(uintptr_t addr);
/* After a dlclose(): addresses may now belong to other code, so every
 * address is resolved again (and stacks are keyed anew). */
void frametab_new_epoch(void);
unsigned frametab_epoch(void);
void frametab_lock_for_fork(void);
void frametab_unlock_after_fork(void);

#endif
