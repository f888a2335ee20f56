/* SPDX-License-Identifier: GPL-3.0-or-later */
/* location.c - the Perl checker's location() (see location.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/location.h"
#include "read/fields.h"
#include "symbolize/ldtrace.h"
#include "symbolize/symbolizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void locator_init(struct locator *l, const char *binary)
{
    memset(l, 0, sizeof *l);
    strmap_init(&l->ld_bases);
    strmap_init(&l->cache);
    if (!binary)
        return;
    l->binary = binary;
    if (strchr(binary, '/')) {
        l->prog = xstrdup(binary);
    } else {
        char *p = xmalloc(strlen(binary) + 3);
        sprintf(p, "./%s", binary);
        l->prog = p;
    }
    /* Like the script, ask ld.so for the load addresses right away: the
	 * run overlaps the reading of the log. */
    ldtrace_start(l->prog, &l->ld_run);
}

static void free_cached(void *v)
{
    struct slice *s = v;
    if (s)
        free((char *)s->p);
    free(s);
}

void locator_destroy(struct locator *l)
{
    ldtrace_cancel(&l->ld_run);
    strmap_each(&l->ld_bases, free);
    strmap_destroy(&l->ld_bases);
    strmap_each(&l->cache, free_cached);
    strmap_destroy(&l->cache);
    free((char *)l->prog);
}

/* Is there a "[0x" at P whose "[^]]*" run ends at the first ']' after it?
 * Returns the index of that ']' or -1. */
static long bracket_end(struct slice s, size_t p)
{
    if (p + 3 > s.n || s.p[p] != '[' || s.p[p + 1] != '0' || s.p[p + 2] != 'x')
        return -1;
    const char *q = memchr(s.p + p + 3, ']', s.n - p - 3);
    return q ? (long)(q - s.p) : -1;
}

int loc_match_form1(struct slice s, struct slice *addr, struct slice *fct)
{
    /* The leading greedy ".*" makes the last qualifying '[' win. */
    for (size_t p = s.n; p-- > 0;) {
        long q = bracket_end(s, p);
        if (q < 0 || (size_t)q + 1 >= s.n || s.p[q + 1] != ':')
            continue;
        *addr = (struct slice){ s.p + p + 1, (size_t)q - p - 1 };
        /* "(.)*" keeps only its last iteration: the last byte, if any. */
        if ((size_t)q + 2 < s.n)
            *fct = (struct slice){ s.p + s.n - 1, 1 };
        else
            *fct = (struct slice){ NULL, 0 };
        return 1;
    }
    return 0;
}

/* For the "$"-anchored forms: the last '[' such that "[0x" starts there and
 * no ']' appears before the final byte, which must be ']'. */
static long last_anchored_bracket(struct slice s)
{
    if (s.n < 4 || s.p[s.n - 1] != ']')
        return -1;
    for (size_t p = s.n - 1; p-- > 0;) {
        if (bracket_end(s, p) == (long)(s.n - 1))
            return (long)p;
        if (s.p[p] == ']')
            break; /* every earlier '[' would see this ']' first */
    }
    return -1;
}

int loc_match_form2(struct slice s, struct slice *prog, struct slice *addr)
{
    long p = last_anchored_bracket(s);
    if (p < 0)
        return 0;
    /* Greedy "^(.*):" takes the last ':' that still leaves the bracket. */
    for (long c = p; c-- > 0;) {
        if (s.p[c] == ':') {
            *prog = (struct slice){ s.p, (size_t)c };
            *addr = (struct slice){ s.p + p + 1, s.n - (size_t)p - 2 };
            return 1;
        }
    }
    return 0;
}

int loc_match_form3(struct slice s, struct slice *addr)
{
    long p = last_anchored_bracket(s);
    if (p < 0)
        return 0;
    *addr = (struct slice){ s.p + p + 1, s.n - (size_t)p - 2 };
    return 1;
}

/* The script's addr2line(): first output line unless it is "??:0" or
 * empty.  A path or address with a NUL could not be passed to a command. */
static char *run_addr2line(struct slice file, uint64_t addr)
{
    if (file.n == 0 || memchr(file.p, '\0', file.n))
        return NULL;
    char *path = xmemdup0(file.p, file.n);
    char *line = sym_addr2line(sym_open(path), addr);
    free(path);
    if (line && (line[0] == '\0' || strcmp(line, "??:0") == 0)) {
        free(line);
        line = NULL;
    }
    return line;
}

static struct slice remember(struct locator *l, struct slice addr, char *text,
                             size_t n)
{
    void **slot = strmap_put(&l->cache, addr);
    struct slice *v = xmalloc(sizeof *v);
    *v = (struct slice){ text, n };
    *slot = v;
    return *v;
}

static struct slice remember_str(struct locator *l, struct slice addr,
                                 char *text)
{
    return remember(l, addr, text, strlen(text));
}

static struct slice remember_copy(struct locator *l, struct slice addr,
                                  struct slice text)
{
    return remember(l, addr, xmemdup0(text.p, text.n), text.n);
}

static int cached(struct locator *l, struct slice addr, struct slice *out)
{
    void **slot = strmap_get(&l->cache, addr);
    if (!slot)
        return 0;
    *out = *(struct slice *)*slot;
    return 1;
}

static uint64_t ld_base(struct locator *l, struct slice prog)
{
    if (!l->ld_loaded) {
        l->ld_loaded = 1;
        ldtrace_collect(&l->ld_run, &l->ld_bases);
    }
    void **slot = strmap_get(&l->ld_bases, prog);
    return slot ? *(uint64_t *)*slot : 0;
}

static struct slice locate_form1(struct locator *l, struct slice addr,
                                 struct slice fct)
{
    struct slice out;
    if (cached(l, addr, &out))
        return out;
    if (l->binary) {
        char *line = run_addr2line(
            (struct slice){ l->binary, strlen(l->binary) },
            c_strtou64_hex(addr));
        if (line)
            return remember_str(l, addr, line);
    }
    char *text = xmalloc(fct.n + 3 + addr.n + 1);
    memcpy(text, fct.p ? fct.p : "", fct.n);
    memcpy(text + fct.n, " @ ", 3);
    memcpy(text + fct.n + 3, addr.p, addr.n);
    text[fct.n + 3 + addr.n] = '\0';
    return remember(l, addr, text, fct.n + 3 + addr.n);
}

static struct slice locate_form2(struct locator *l, struct slice prog,
                                 struct slice addr)
{
    struct slice out;
    if (cached(l, addr, &out))
        return out;
    if (l->binary) {
        /* sprintf "%#x", hex(ADDR) + base: Perl saturates past 2^64. */
        uint64_t base = ld_base(l, prog), a = perl_hex(addr);
        uint64_t search = a > UINT64_MAX - base ? UINT64_MAX : a + base;
        char *line = run_addr2line(prog, search);
        if (!line)
            line = run_addr2line(prog, c_strtou64_hex(addr));
        if (line)
            return remember_str(l, addr, line);
    }
    return remember_copy(l, addr, addr);
}

static struct slice locate_form3(struct locator *l, struct slice addr)
{
    struct slice out;
    if (cached(l, addr, &out))
        return out;
    if (l->binary) {
        char *line = run_addr2line(
            (struct slice){ l->binary, strlen(l->binary) },
            c_strtou64_hex(addr));
        if (line)
            return remember_str(l, addr, line);
    }
    return remember_copy(l, addr, addr);
}

struct slice locate(struct locator *l, struct slice where)
{
    struct slice addr, fct, prog;

    if (where.n == 0)
        return where;
    if (loc_match_form1(where, &addr, &fct))
        return locate_form1(l, addr, fct);
    if (loc_match_form2(where, &prog, &addr))
        return locate_form2(l, prog, addr);
    if (loc_match_form3(where, &addr))
        return locate_form3(l, addr);
    return where;
}
