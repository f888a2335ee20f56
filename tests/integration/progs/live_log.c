/* SPDX-License-Identifier: GPL-3.0-or-later
 * live_log.c MODE - the same blocks for a full and a live log
 * (MEMLEAK_CONFIG=log=live, tests-livelog.sh).  Deterministic: run twice
 * under setarch -R, the two runs get the same addresses.  Every block the
 * program means has a size of its own (2000 and up).
 *
 * report: blocks of every class (1 still reachable from a global, 1
 *   definitely lost, a leaked cycle: 1 definitely and 2 indirectly lost,
 *   1 possibly lost), a report point (mtrace()), then two blocks written
 *   there are freed and one is realloc'ed larger; a thread leaks one
 *   block and frees many; blocks allocated and freed between report
 *   points never show; exit (its verdicts).
 * stacks: 32768 blocks from as many stacks, written at one report point,
 *   half of them freed after it.
 * fork: the parent leaks one block, forks; the child leaks one of its
 *   own and frees one it inherited, exits; the parent waits, exits.
 * Output without stdio (util.h).  Built at -O1, as verdicts.c. */
#define _GNU_SOURCE
#include "util.h"
#include <mcheck.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *alloc(size_t n)
{
    void *p = malloc(n);
    escape(p);
    memset(p, 0, n);
    return p;
}

void *kept;     /* still reachable */
char *interior; /* possibly lost: points inside its block */
void *to_free[2];
void *to_grow;

__attribute__((noinline)) static void make_classes(void)
{
    kept = alloc(2001);
    alloc(2002); /* definitely lost */
    void **a = alloc(2011), **b = alloc(2012), **c = alloc(2013);
    a[0] = b; /* a leaked cycle: one definitely lost, two indirectly */
    b[0] = c;
    c[0] = a;
    a = b = c = NULL;
    interior = (char *)alloc(2021) + 100;
    to_free[0] = alloc(2031);
    to_free[1] = alloc(2032);
    to_grow = alloc(2041);
}

/* Many blocks that come and go between report points. */
__attribute__((noinline)) static void churn(int n)
{
    for (int i = 0; i < n; i++) {
        void *p = alloc((size_t)(16 + i % 200));
        void *q = realloc(p, (size_t)(300 + i % 100));
        escape(q);
        free(q);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    churn(5000);
    alloc(2051); /* definitely lost, from a thread */
    return NULL;
}

__attribute__((noinline)) static void after_report(void)
{
    free(to_free[0]); /* written at the report point, freed: not reported */
    free(to_free[1]);
    to_free[0] = to_free[1] = NULL;
    to_grow = realloc(to_grow, 2042); /* a written block, realloc'ed */
    escape(to_grow);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    churn(2000);
}

static int report_case(void)
{
    mtrace();
    make_classes();
    churn(2000);
    mtrace(); /* a report point: the live blocks go into a live log */
    after_report();
    return 0;
}

static int fork_case(void)
{
    mtrace();
    void *inherited = alloc(2061);
    alloc(2062); /* the parent's leak */
    pid_t pid = fork();
    if (pid == 0) {
        free(inherited); /* not the child's to log */
        alloc(2063);     /* the child's leak */
        churn(100);
        exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    free(inherited);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* 2^STACK_BITS blocks, each from a stack of its own (a binary walk: each
 * level calls on from one of two call sites), kept in a global array: at
 * the report point each stack's first line is written, with the scan's
 * locks held (the parts of its lines take memory then: 32768 stacks map
 * more than one of the library's arena chunks). */
#define STACK_BITS 15
static void *many[1u << STACK_BITS];

__attribute__((noinline)) static void walk(int depth, unsigned bits)
{
    if (depth == 0) {
        many[bits] = alloc(16);
        return;
    }
    if (bits >> (depth - 1) & 1)
        walk(depth - 1, bits);
    else
        walk(depth - 1, bits);
    escape(&bits); /* no tail call: each call site stays on the stack */
}

static int stacks_case(void)
{
    mtrace();
    for (unsigned i = 0; i < 1u << STACK_BITS; i++)
        walk(STACK_BITS, i);
    mtrace(); /* a report point: 32768 stacks written at once */
    for (unsigned i = 0; i < 1u << STACK_BITS; i += 2)
        free(many[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "stacks") == 0)
        return stacks_case();
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return report_case();
    if (argc > 1 && strcmp(argv[1], "fork") == 0)
        return fork_case();
    return 2;
}
