/* SPDX-License-Identifier: GPL-3.0-or-later
 * semantics.c - prints what the allocator returns for edge cases (never a
 * pointer value), so the output under a preload can be compared with the
 * native output.  Frees everything: no leaks. */
#include <errno.h>
#include <malloc.h>
#include <mcheck.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void show(const char *what, const void *p, int err)
{
    say("%-28s %s errno=%d aligned16=%d\n", what, p ? "ptr " : "NULL", err,
        p ? (int)((uintptr_t)p % 16 == 0) : -1);
}

static void realloc_cases(void)
{
    char *p = malloc(100), *q;

    memset(p, 'k', 100);
    errno = 0;
    q = realloc(hide(p), opaque_size(SIZE_MAX - 4096));
    show("realloc(p, huge)", q, errno);
    say("old block intact: %d\n", !q && p[0] == 'k' && p[99] == 'k');
    errno = 0;
    q = realloc(hide(p), 0);
    show("realloc(p, 0)", q, errno);
    free(q);
    errno = 0;
    q = reallocarray(NULL, opaque_size(SIZE_MAX / 2), 4);
    show("reallocarray(overflow)", q, errno);
    p = malloc(8);
    errno = 0;
    q = reallocarray(hide(p), opaque_size(SIZE_MAX / 16 + 1), 16);
    show("reallocarray(p, overflow)", q, errno);
    q = reallocarray(hide(p), 10, 10);
    show("reallocarray(p, 10, 10)", q, errno);
    free(q ? q : hide(p));
}

static void memalign_cases(void)
{
    static const size_t aligns[] = { 0, 3, 4, 8, 24, 64, 4096 };
    char name[64];

    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
        void *p = NULL;
        int rc = posix_memalign(&p, aligns[i], 100);

        say("posix_memalign(%zu, 100) rc=%d %s aligned=%d\n", aligns[i], rc,
            p ? "ptr" : "NULL",
            p && aligns[i] ? (int)((uintptr_t)p % aligns[i] == 0) : -1);
        free(p);
        errno = 0;
        p = aligned_alloc(aligns[i], 64);
        snprintf(name, sizeof name, "aligned_alloc(%zu, 64)", aligns[i]);
        show(name, p, errno);
        free(p);
    }
}

static void overflow_cases(void)
{
    void *p = NULL;
    int rc;

    errno = 0;
    show("malloc(SIZE_MAX)", p = malloc(opaque_size(SIZE_MAX)), errno);
    errno = 0;
    show("calloc(overflow)", p = calloc(opaque_size(SIZE_MAX / 2), 3), errno);
    errno = 0;
    show("memalign(64, huge)", p = memalign(64, opaque_size(SIZE_MAX - 100)),
         errno);
    rc = posix_memalign(&p, 64, opaque_size(SIZE_MAX - 100));
    say("posix_memalign(64, huge) rc=%d\n", rc);
    errno = 0;
    show("valloc(huge)", p = valloc(opaque_size(SIZE_MAX - 100)), errno);
    errno = 0;
    show("pvalloc(huge)", p = pvalloc(opaque_size(SIZE_MAX - 100)), errno);
}

static void size_cases(void)
{
    void *p = malloc(0);

    show("malloc(0)", p, 0);
    free(p);
    p = malloc(100);
    say("usable(malloc(100)) = %zu\n", malloc_usable_size(p));
    free(p);
    p = calloc(0, 5);
    show("calloc(0, 5)", p, 0);
    free(p);
    p = pvalloc(1);
    say("usable(pvalloc(1)) >= 4096: %d\n", malloc_usable_size(p) >= 4096);
    free(p);
    p = calloc(10, 10);
    say("calloc zeroed: %d\n", ((char *)p)[0] == 0 && ((char *)p)[99] == 0);
    free(p);
    free(NULL);
}

int main(void)
{
    mtrace();
    realloc_cases();
    memalign_cases();
    overflow_cases();
    size_cases();
    return 0;
}
