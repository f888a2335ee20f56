/* SPDX-License-Identifier: GPL-3.0-or-later
 * signal_stack.c - allocations made inside a signal handler (a synchronous
 * raise(), so the allocator is not interrupted): the stacks must unwind
 * through the signal frame back into main.  Known leaks: 153 (in the
 * handler), 51 (in main, afterwards). */
#include <mcheck.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void *kept[2];

static __attribute__((noinline)) void *handler_alloc(size_t n)
{
    return used(malloc(n));
}

static void on_signal(int sig)
{
    (void)sig;
    kept[0] = handler_alloc(153);
    free(used(malloc(10)));
}

static __attribute__((noinline)) void send_signal(void)
{
    raise(SIGUSR1);
    escape(kept);
}

int main(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    mtrace();
    send_signal();
    kept[1] = used(malloc(51));
    escape(kept);
    return 0;
}
