/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suppress.c - see suppress.h. */
#define _GNU_SOURCE
#include "scan/suppress.h"
#include "base/sysfd.h"
#include "../include/mtrace-suppress.h"
#include "base/arena.h"
#include "base/diag.h"
#include "symbols/elfsyms.h"
#include "symbols/frametab.h"
#include "symbols/modmap.h"
#include "symbols/stacktab.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

static const char *patterns[SUPPRESS_MAX];
static size_t npatterns;

size_t suppress_count(void)
{
    return npatterns;
}

const char *suppress_pattern(size_t i)
{
    return i < npatterns ? patterns[i] : NULL;
}

void suppress_each(void (*fn)(const char *, void *), void *arg)
{
    for (size_t i = 0; i < npatterns; i++)
        fn(patterns[i], arg);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

size_t suppress_parse(const char *text, size_t len)
{
    size_t added = 0;
    for (size_t at = 0; at < len;) {
        const char *line = text + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        while (n && is_space(*line))
            line++, n--;
        while (n && is_space(line[n - 1]))
            n--;
        if (n <= 5 || memcmp(line, "leak:", 5) != 0)
            continue; /* comments, blank lines, other sanitizers' kinds */
        line += 5;
        n -= 5;
        if (n == 0 || n >= SUPPRESS_PATTERN_MAX || npatterns == SUPPRESS_MAX)
            continue;
        char *copy = arena_alloc(n + 1);
        if (copy == NULL)
            break;
        memcpy(copy, line, n);
        copy[n] = '\0';
        patterns[npatterns++] = copy;
        added++;
    }
    return added;
}

int suppress_pattern_matches(const char *pattern, const char *text)
{
    return mts_pattern_matches(pattern, text);
}

static const char *function_of(const struct frame *f)
{
    uintptr_t off;
    if (f->symbol)
        return f->symbol;
    return f->mod ? elfsyms_lookup(f->mod, f->offset, &off) : NULL;
}

int suppress_match(const struct stack *s)
{
    if (npatterns == 0 || s == NULL)
        return -1;
    for (size_t i = 0; i < npatterns; i++)
        for (unsigned k = 0; k < s->depth; k++) {
            const struct frame *f = s->frames[k];
            if (suppress_pattern_matches(patterns[i], function_of(f)) ||
                (f->mod && suppress_pattern_matches(patterns[i], f->mod->path)))
                return (int)i;
        }
    return -1;
}

/* ---- loading ------------------------------------------------------------- */

static void load_file(const char *path)
{
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag("MEMLEAK_CONFIG: suppressions file '", path, "': ",
             strerror(errno), ", ignored", NULL);
        return;
    }
    size_t cap = 65536, len = 0;
    char *buf = pages_map(cap);
    for (ssize_t n; buf && (n = read(fd, buf + len, cap - len)) > 0;) {
        len += (size_t)n;
        if (len == cap) {
            char *bigger = pages_map(cap * 2);
            if (bigger)
                memcpy(bigger, buf, len);
            pages_unmap(buf, cap);
            buf = bigger;
            cap *= 2;
        }
    }
    sys_close(fd);
    if (buf)
        suppress_parse(buf, len);
    pages_unmap(buf, cap);
}

static int first_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            *(uintptr_t *)arg = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            return 1;
        }
    return 1;
}

/* The program's __lsan_default_suppressions: exported (dlsym), or only in
 * the executable's symbol table (a program not built with -rdynamic). */
static const char *(*default_suppressions(void))(void)
{
    void *f = dlsym(RTLD_DEFAULT, "__lsan_default_suppressions");
    if (f)
        return (const char *(*)(void))f;
    uintptr_t exe = 0, off;
    dl_iterate_phdr(first_module, &exe);
    struct module *m = exe ? modmap_find(exe) : NULL;
    if (m && elfsyms_address_of(m, "__lsan_default_suppressions", &off))
        return (const char *(*)(void))(m->bias + off);
    return NULL;
}

void suppress_load(const char *file)
{
    static int loaded;
    if (loaded)
        return;
    loaded = 1;
    if (file && *file)
        load_file(file);
    const char *(*fn)(void) = default_suppressions();
    const char *text = fn ? fn() : NULL;
    if (text)
        suppress_parse(text, strlen(text));
}
