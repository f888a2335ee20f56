/* SPDX-License-Identifier: GPL-3.0-or-later
 * ci_leaks.c - the leaks of the CI outputs' tests (tests-ci.sh): SARIF,
 * JUnit, Code Quality, fingerprints, baselines, generated suppressions.
 *   old   leak_config (1201 bytes) and leak_cache (1202) definitely lost,
 *         leak_list's head (1203, definitely) and its two nodes (1204,
 *         indirectly lost), keep_state's block (1205) still reachable
 *   new   the same and one more: leak_session (1301, definitely lost)
 *   clean keep_state's block only: no leak
 * Built twice: ci_leaks, and ci_leaks_shifted from a copy in another
 * directory with lines and SHIFTED defined above (the Makefile), where an
 * unrelated function and those lines move every address and every line
 * (the fingerprints must not change).  -O1, as verdicts.c:
 * a returned frame's pointer is left where it was. */
#include "util.h"
#include <mcheck.h>
#include <stdlib.h>
#include <string.h>

#ifdef SHIFTED
/* Unrelated code: a function the leaks never call, and lines of
 * comment, so that everything below moves.
 *
 *
 *
 */
static __attribute__((noinline)) int unrelated(int x)
{
    char buf[64];
    memset(buf, x, sizeof buf);
    escape(buf);
    return buf[x & 63] * 3;
}
#endif

struct node {
    struct node *next; /* the rest of its 1204 bytes unused */
};

void *state; /* the still reachable block */

__attribute__((noinline)) static void leak_config(void)
{
    char *p = malloc(1201); /* ci-leak: config */
    escape(p);
}

__attribute__((noinline)) static void leak_cache(void)
{
    char *p = malloc(1202); /* ci-leak: cache */
    escape(p);
}

/* A head block (definitely lost) and two nodes only it reaches
 * (indirectly lost). */
__attribute__((noinline)) static void leak_list(void)
{
    struct node *head = malloc(1203); /* ci-leak: list head */
    head->next = NULL;
    for (int i = 0; i < 2; i++) {
        struct node *n = malloc(1204); /* ci-leak: list node */
        n->next = head->next;
        head->next = n;
    }
    escape(head);
}

__attribute__((noinline)) static void keep_state(void)
{
    state = malloc(1205);
    escape(state);
}

__attribute__((noinline)) static void leak_session(void)
{
    char *p = malloc(1301); /* ci-leak: session */
    escape(p);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "old") != 0 && strcmp(mode, "new") != 0 &&
        strcmp(mode, "clean") != 0) {
        say("usage: ci_leaks old|new|clean\n");
        return 2;
    }
    mtrace();
#ifdef SHIFTED
    escape(&(int){ unrelated(argc) });
#endif
    keep_state();
    if (strcmp(mode, "clean") == 0)
        return 0;
    leak_config();
    leak_cache();
    leak_list();
    if (strcmp(mode, "new") == 0)
        leak_session();
    return 0;
}
