/* SPDX-License-Identifier: GPL-3.0-or-later
 * jit.c - malloc() called from generated code in an anonymous executable
 * mapping (no module, no unwind info), which is unmapped afterwards.  The
 * unwinders must cope (a short stack is fine, a crash is not); the caller
 * is logged as a bare "[0xADDR]".  Known leaks: 66 (from the generated
 * code), 77 (from main afterwards). */
#include <mcheck.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "util.h"

typedef void *(*alloc_fn)(size_t);

/* sub $8,%rsp; movabs $target,%rax; call *%rax; add $8,%rsp; ret */
static alloc_fn make_trampoline(void *target)
{
    static const unsigned char head[] = { 0x48, 0x83, 0xec, 0x08, 0x48, 0xb8 };
    static const unsigned char tail[] = { 0xff, 0xd0, 0x48, 0x83,
                                          0xc4, 0x08, 0xc3 };
    unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t addr = (uintptr_t)target;

    if (code == MAP_FAILED)
        return NULL;
    memcpy(code, head, sizeof head);
    memcpy(code + sizeof head, &addr, sizeof addr);
    memcpy(code + sizeof head + sizeof addr, tail, sizeof tail);
    return (alloc_fn)(void *)code;
}

int main(void)
{
    alloc_fn generated = make_trampoline((void *)malloc);

    if (!generated)
        return 1;
    mtrace();
    escape(generated(66));
    for (int i = 0; i < 10; i++)
        free(generated(10 + i));
    munmap((void *)generated, 4096);
    escape(malloc(77));
    say("done\n");
    return 0;
}
