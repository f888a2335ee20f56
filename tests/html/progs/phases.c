/* SPDX-License-Identifier: GPL-3.0-or-later */
/* phases.c - a traced program with a shape for the HTML report's tests:
 * it builds an index (the peak), drops it, then leaks from two places
 * while churning temporaries, pausing between rounds so the log's "#t"
 * records spread over time. */
#include <mcheck.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { INDEX = 20000, ROUNDS = 40 };

static void *index_blocks[INDEX];
static void *volatile sink;

static void *index_entry(size_t n)
{
    return malloc(n);
}

static void build_index(void)
{
    for (int i = 0; i < INDEX; i++) {
        index_blocks[i] = index_entry(64 + i % 64);
        if (i % 1000 == 999)
            usleep(2000);
    }
}

static void drop_index(void)
{
    for (int i = 0; i < INDEX; i++)
        free(index_blocks[i]);
}

static char *remember_name(int i)
{
    char name[32];
    snprintf(name, sizeof name, "request-%d", i);
    return strdup(name); /* never freed: a leak through strdup */
}

static void *cache_page(void)
{
    return calloc(1, 4096); /* never freed */
}

static void churn(void)
{
    for (int i = 0; i < 200; i++) {
        char *t = malloc(32 + i);
        sink = t;
        free(t);
    }
}

int main(void)
{
    mtrace();
    build_index();
    drop_index();
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < 25; i++)
            sink = remember_name(r * 25 + i);
        if (r % 4 == 0)
            sink = cache_page();
        churn();
        usleep(3000);
    }
    return 0;
}
