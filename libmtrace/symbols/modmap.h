/* SPDX-License-Identifier: GPL-3.0-or-later */
/* modmap.h - the loaded ELF modules, so that every frame can be written as
 * module + offset and symbolised offline, after dlclose and whatever the
 * load address was.  Modules are never removed: an unloaded one is marked,
 * its record stays valid for the frames that point into it.
 */
#ifndef MT_MODMAP_H
#define MT_MODMAP_H
#include <stdatomic.h>
#include <stdint.h>

#define BUILD_ID_HEX_MAX 64

struct dynsyms;

struct module {
    int id;
    uintptr_t bias;   /* dlpi_addr: 0 for non-PIE executables */
    uintptr_t lo, hi; /* extent of the PT_LOAD segments       */
    const char *path; /* absolute, but for the vDSO's   */
    char build_id[BUILD_ID_HEX_MAX + 1]; /* hex, "" when absent          */
    atomic_int unloaded;
    /* Its dynamic symbols sorted for dladdr's answers (dynsyms.c), made
     * on first use; a module loaded again at the same place is the same
     * file, and keeps it. */
    _Atomic(struct dynsyms *) dynsyms;
    /* Owned by the log writer (under the log lock): the log generation in
     * which the record / the unload record was last written. */
    unsigned emitted_gen, unload_emitted_gen;
};

/* The loaded module containing ADDR, scanning the loader's list again when
 * it is not known yet (a dlopen since the last look).  NULL when none does.
 * Calls dl_iterate_phdr: never call it with a tracer lock held. */
struct module *modmap_find(uintptr_t addr);
/* After dlclose(): marks modules that are gone.  Returns how many. */
int modmap_mark_unloaded(void);
/* Moves on each time modmap_mark_unloaded() marks a module: a frame or
 * stack checked at an older value must be checked again (frametab.h). */
unsigned modmap_unload_gen(void);
/* Modules known so far, in id order. */
int modmap_count(void);
struct module *modmap_get(int id);
/* The traced executable (/proc/self/exe, read once); "" if unknown. */
const char *modmap_executable_path(void);
/* In a fork child: another thread may have held the table's lock. */
void modmap_reset_after_fork(void);
/* In a fork child, once: see modmap_loader_list_usable(). */
void modmap_note_fork_child(void);
/* Whether dl_iterate_phdr() may be called.  Not in a fork child (until it
 * execs): a thread of the parent may have held the loader's write lock at
 * the fork, inside dlopen() itself (glibc allocates there, so that thread
 * can even be waiting at forkgate.h's gate), and glibc 2.36 resets only
 * the other loader lock in the child.  Our own lookups then use
 * _dl_find_object() alone, which takes no lock; unwinders that need
 * dl_iterate_phdr (libunwind) give way to fastunwind (unwind.c). */
int modmap_loader_list_usable(void);
/* The calling thread never enters the loader (the ring's consumer,
 * track/offload.h: a thread waiting for it may hold the loader's lock):
 * what the lock-free lookups cannot name stays unnamed there. */
void modmap_no_loader_here(void);
int modmap_loader_here(void); /* 0 on such a thread */

#endif
