/* SPDX-License-Identifier: GPL-3.0-or-later */
/* frametab.h - what is known about each distinct code address seen in a
 * stack: its module and offset, its symbol (demangled), and glibc's WHERE
 * string for it.  Resolved once per address (the symbol as dladdr names
 * it, through dynsyms.h; the module map and the demangler are slow, and
 * may take the loader lock), outside every tracer lock.
 */
#ifndef MT_FRAMETAB_H
#define MT_FRAMETAB_H
#include "base/cmap.h"
#include "symbols/modmap.h"
#include <stdatomic.h>
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
    atomic_uint checked;  /* modmap_unload_gen() when last found valid */
    /* The log writer's "@ WHERE " of the event lines of every stack whose
     * first frame this is (see struct stack's HEAD), made once under its
     * lock; NULL until then. */
    const char *head;
};

/* The frame for ADDR, resolving it on first sight.  NULL only when out of
 * memory.  May call dladdr/dl_iterate_phdr: no tracer lock may be held. */
struct frame *frametab_get(uintptr_t addr);
/* Whether F still describes the code at its address.  Only a dlclose()
 * can make it wrong, and only when other code is then loaded where F's
 * module was: the code epoch then moves on, every address is resolved
 * again and stacks are keyed anew, and this returns 0.  A module loaded
 * again at the same place (same build-id) keeps its frames.  Cheap while
 * no module was unloaded since F was last checked. */
int frametab_check(struct frame *f);
void frametab_new_epoch(void);
unsigned frametab_epoch(void);
void frametab_lock_for_fork(void);
void frametab_unlock_after_fork(void);

#endif
