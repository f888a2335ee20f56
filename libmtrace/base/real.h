/* SPDX-License-Identifier: GPL-3.0-or-later */
/* real.h - the real allocator, reached through glibc's __libc_* exports.
 * Calling these never goes through dlsym (which itself allocates) and never
 * re-enters our own wrappers. */
#ifndef MT_REAL_H
#define MT_REAL_H
#include <signal.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);
extern void __libc_freeres(void);

/* posix_memalign and aligned_alloc have no __libc_ twin: these rebuild
 * them on __libc_memalign with glibc's own argument checks. */
int real_posix_memalign(void **memptr, size_t alignment, size_t size);
void *real_aligned_alloc(size_t alignment, size_t size);

/* mmap, munmap and mremap as system calls: libmtrace exports wrappers
 * of these names (interpose/mmapwrap.c, MEMLEAK_CONFIG=mmap=1), and its
 * own mappings must never reach them.  Failures as libc's: MAP_FAILED or
 * -1 with errno set. */
void *real_mmap(void *addr, size_t len, int prot, int flags, int fd,
                long offset);
int real_munmap(void *addr, size_t len);
void *real_mremap(void *old, size_t old_len, size_t new_len, int flags,
                  void *new_addr);

/* The next definition of NAME after ours (libc's), through dlsym with the
 * recursion guard set (dlsym allocates).  NULL when there is none. */
void *real_next_symbol(const char *name);

/* glibc's sigaction, for the library's own handlers: the exported
 * sigaction() is our wrapper (interpose/sigtramp.c), which keeps the
 * program's dispositions and must never see ours. */
int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif
