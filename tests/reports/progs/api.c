/* SPDX-License-Identifier: GPL-3.0-or-later */
/* api.c - uses memleak.h.  "./api steady" runs a loop that frees what it
 * allocates under MEMLEAK_ASSERT_NO_GROWTH; "./api leak" leaks 64 bytes a
 * round after the warm-up, which must abort with a report.  Both print
 * what the API reports. */
#include <memleak.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

int main(int argc, char **argv)
{
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    long before = memleak_live_bytes();
    void *p = malloc(3000);
    sink = p;
    long grew = memleak_live_bytes() - before; /* before stdio's buffer */
    printf("active %d\n", memleak_active());
    printf("grew %ld\n", grew);
    printf("report %d\n", memleak_report("api test"));
    free(p);
    memleak_savepoint sp;
    for (int i = 0; i < 20; i++) {
        void *q = malloc(64);
        sink = q;
        if (!(leak && i > 5))
            free(q);
        MEMLEAK_ASSERT_NO_GROWTH(sp, i, 3);
    }
    printf("loop done\n");
    return 0;
}
