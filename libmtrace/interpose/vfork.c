/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vfork.c - a vfork() child runs on its parent's memory, its thread's
 * TLS included, until it execs or exits: whatever the tracer did there
 * (a line in the parent's log, "#e exec" ending the parent's log, a scan
 * of the parent's heap at _exit) would be done as the parent.  So vfork()
 * sets the recursion guard (guard.h) before the system call and the
 * parent puts it back after: the child runs with it set, and every
 * wrapper passes straight to libc (allocations untraced, exec and _exit
 * without a word in the log), as glibc's own tracer leaves such a child
 * alone.  posix_spawn() needs none of this: glibc's child runs its own
 * code on its own stack and calls execve internally.
 *
 * The wrapper is assembly, as glibc's is: the child returns through the
 * parent's stack, so the return address is kept in a register across
 * the system call, not on the stack the child will overwrite.  RSI keeps
 * the guard's old value (the system call preserves it).
 */
#define _GNU_SOURCE
#include "base/guard.h"
#include <errno.h>
#include <sys/syscall.h>

/* The parent's half, entered by a jump with vfork()'s caller's return
 * address on the stack: the guard as it was, the result or errno. */
__attribute__((used, visibility("hidden"))) long vfork_parent(long result,
                                                              int guard);

long vfork_parent(long result, int guard)
{
    if (guard)
        mt_in_tracer = guard;
    else
        guard_leave(); /* also releases signals held back meanwhile */
    if (result < 0 && result > -4096) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

#define STR_(x) #x
#define STR(x) STR_(x)

__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        ".p2align 4\n"
        "vfork:\n"
        ".cfi_startproc\n"
#ifdef __CET__
        "endbr64\n"
#endif
        "movq mt_in_tracer@gottpoff(%rip), %rcx\n"
        "movl %fs:(%rcx), %esi\n"
        "movl $1, %fs:(%rcx)\n"
        "popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_register %rip, %rdi\n"
        "movl $" STR(SYS_vfork) ", %eax\n"
        "syscall\n"
        "pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rip, 0\n"
        "testq %rax, %rax\n"
        "jnz 1f\n"
        "ret\n" /* the child: the guard stays set */
        "1:\n"
        "movq %rax, %rdi\n"
        "jmp vfork_parent\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");
