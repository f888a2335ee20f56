/* SPDX-License-Identifier: GPL-3.0-or-later
 * odd_stacks.c - allocations from places that are hard to unwind: a
 * ucontext coroutine on a heap-allocated stack, a signal handler on an
 * alternate signal stack, a function whose frame is realigned (DRAP) and
 * one using alloca.  Known leaks: 11, 22, 44, 55 (one per case); the
 * coroutine's stack (65536) is freed. */
#include <alloca.h>
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include "util.h"

static ucontext_t main_ctx, co_ctx;

static __attribute__((noinline)) void *take(size_t n)
{
    return used(malloc(n));
}

/* Each caller of take() uses its result afterwards: no tail calls, so the
 * caller stays on the stack. */
static void coroutine(void)
{
    escape(take(11));
}

static void in_coroutine(void)
{
    size_t size = 65536;
    void *stack = malloc(size);

    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = stack;
    co_ctx.uc_stack.ss_size = size;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, coroutine, 0);
    swapcontext(&main_ctx, &co_ctx);
    free(stack);
}

static void on_signal(int sig)
{
    (void)sig;
    escape(take(22));
}

static void on_alternate_stack(void)
{
    static char altstack[65536];
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
    struct sigaction sa;

    sigaltstack(&ss, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, NULL);
    raise(SIGUSR2);
}

static __attribute__((noinline)) void *realigned(size_t n)
{
    char aligned[256] __attribute__((aligned(128)));

    void *p;

    escape(aligned);
    p = take(n + aligned[0] * 0);
    escape(p);
    return p;
}

static __attribute__((noinline)) void *with_alloca(size_t n)
{
    char *tmp = alloca(64 + n);
    void *p;

    escape(tmp);
    p = take(n);
    escape(p);
    return p;
}

int main(void)
{
    mtrace();
    in_coroutine();
    on_alternate_stack();
    realigned(44);
    with_alloca(55);
    say("done\n");
    return 0;
}
