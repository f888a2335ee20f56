/* SPDX-License-Identifier: GPL-3.0-or-later */
/* real.c - allocation functions glibc does not export under a __libc_ name,
 * rebuilt with glibc 2.36's argument checks so a traced program sees the
 * same errors it would see natively. */
#define _GNU_SOURCE
#include "base/real.h"
#include "base/guard.h"
#include <dlfcn.h>
#include <errno.h>
#include <features.h>
#include <sys/syscall.h>
#include <unistd.h>

static int is_power_of_two(size_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

int real_posix_memalign(void **memptr, size_t alignment, size_t size)
{
    /* glibc: a power-of-two multiple of sizeof(void *), else EINVAL. */
    if (alignment % sizeof(void *) != 0 ||
        !is_power_of_two(alignment / sizeof(void *)))
        return EINVAL;
    void *mem = __libc_memalign(alignment, size);
    if (mem == NULL)
        return ENOMEM;
    *memptr = mem;
    return 0;
}

void *real_aligned_alloc(size_t alignment, size_t size)
{
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 38)
    /* From glibc 2.38 aligned_alloc rejects non-power-of-two alignments. */
    if (!is_power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
#endif
    /* Up to 2.37 aligned_alloc is an alias of memalign. */
    return __libc_memalign(alignment, size);
}

void *real_next_symbol(const char *name)
{
    GUARD_SCOPE(entered); /* held either way: dlsym allocates */
    return dlsym(RTLD_NEXT, name);
}

extern int __sigaction(int, const struct sigaction *, struct sigaction *);

int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return __sigaction(sig, act, old);
}

void *real_mmap(void *addr, size_t len, int prot, int flags, int fd,
                long offset)
{
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, offset);
}

int real_munmap(void *addr, size_t len)
{
    return (int)syscall(SYS_munmap, addr, len);
}

void *real_mremap(void *old, size_t old_len, size_t new_len, int flags,
                  void *new_addr)
{
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}
