/* SPDX-License-Identifier: GPL-3.0-or-later
 * tidy.c - a test that frees what it allocates. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    char *p = malloc(1000);
    snprintf(p, 1000, "tidy done");
    puts(p);
    free(p);
    return 0;
}
