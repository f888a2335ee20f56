/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgsupp.c - see vgsupp.h.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "findings/vgsupp.h"
#include "symbolize/demangle.h"
#include "base/diag.h"
#include "base/util.h"
#include "replay/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vg_wildcard(const char *p, const char *t)
{
    for (; *p; p++, t++) {
        if (*p == '*') {
            while (p[1] == '*')
                p++;
            if (p[1] == '\0')
                return 1;
            for (; *t; t++)
                if (vg_wildcard(p + 1, t))
                    return 1;
            return 0;
        }
        if (*t == '\0' || (*p != '?' && *p != *t))
            return 0;
    }
    return *t == '\0';
}

void vgsupp_free(struct vg_supp *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->f[i].pattern);
        free(s->f[i].demangled);
    }
    free(s->f);
    free(s);
}

/* ---- reading --------------------------------------------------------------- */

static char *trim(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    char *end = p + strlen(p);
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
                       end[-1] == '\r'))
        end--;
    *end = '\0';
    return p;
}

int vgsupp_is_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char buf[4096];
    int yes = 0;
    while (fgets(buf, sizeof buf, f)) {
        char *p = trim(buf);
        if (*p == '\0' || *p == '#')
            continue;
        yes = *p == '{';
        break;
    }
    fclose(f);
    return yes;
}

/* "Memcheck:Leak", "Memcheck,Helgrind:Leak": a memcheck leak entry. */
static int is_memcheck_leak(const char *p)
{
    const char *colon = strrchr(p, ':');
    if (colon == NULL || strcmp(colon + 1, "Leak") != 0)
        return 0;
    for (const char *t = p; t < colon;) {
        size_t n = strcspn(t, ",:");
        if (n == 8 && strncmp(t, "Memcheck", 8) == 0)
            return 1;
        t += n + 1;
    }
    return 0;
}

/* "match-leak-kinds: definite,possible" -> a class mask; -1: malformed. */
static int leak_kinds(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return class_mask_parse(p);
}

static int is_wild(const char *p)
{
    return strpbrk(p, "*?") != NULL;
}

/* A frame line; returns 0, or -1 when it is none. */
static int add_frame(struct vg_supp *s, const char *p)
{
    struct vg_supp_frame fr = { VGF_ANY, NULL, NULL, 0 };
    if (strcmp(p, "...") == 0) {
        fr.kind = VGF_ANY;
    } else if (strncmp(p, "fun:", 4) == 0) {
        fr.kind = VGF_FUN;
        fr.pattern = xstrdup(p + 4);
        if (strncmp(p + 4, "_Z", 2) == 0 && !is_wild(p + 4))
            fr.demangled = demangle_name(p + 4);
    } else if (strncmp(p, "obj:", 4) == 0) {
        fr.kind = VGF_OBJ;
        fr.pattern = xstrdup(p + 4);
    } else if (strncmp(p, "src:", 4) == 0) {
        fr.kind = VGF_SRC;
        fr.pattern = xstrdup(p + 4);
        char *colon = strrchr(fr.pattern, ':');
        if (colon && colon[1] && strspn(colon + 1, "0123456789") ==
                                     strlen(colon + 1)) {
            fr.line = (unsigned)strtoul(colon + 1, NULL, 10);
            *colon = '\0';
        }
    } else {
        return -1;
    }
    s->f = xrealloc(s->f, (s->n + 1) * sizeof *s->f);
    s->f[s->n++] = fr;
    return 0;
}

struct reader {
    const char *path;
    int complain, bad;
    uint64_t nr;
    /* the entry being read */
    int state; /* 0 outside, 1 name, 2 tool, 3 kinds or frames, 4 skip */
    char *name;
    struct vg_supp *s;
    void (*add)(void *, const char *, struct vg_supp *);
    void *arg;
};

static void bad(struct reader *r, const char *what, const char *line)
{
    r->bad = 1;
    if (r->complain)
        diag(r->path, r->nr, "%s: '%s'", what, line);
}

static void end_entry(struct reader *r)
{
    if (r->s && r->state == 3)
        r->add(r->arg, r->name, r->s);
    else
        vgsupp_free(r->s);
    free(r->name);
    r->name = NULL;
    r->s = NULL;
    r->state = 0;
}

static void read_line(struct reader *r, char *p)
{
    if (*p == '\0' || *p == '#')
        return;
    if (r->state == 0) {
        if (strcmp(p, "{") != 0)
            return bad(r, "expected '{' (a valgrind suppression)", p);
        r->state = 1;
        return;
    }
    if (strcmp(p, "}") == 0) {
        if (r->state < 3)
            bad(r, "suppression ends before its kind", p);
        return end_entry(r);
    }
    switch (r->state) {
    case 1:
        r->name = xstrdup(p);
        r->state = 2;
        return;
    case 2:
        if (!is_memcheck_leak(p)) {
            r->state = 4; /* another kind: not libmtrace's to apply */
            return;
        }
        r->s = xcalloc(1, sizeof *r->s);
        r->s->kinds = -1;
        r->state = 3;
        return;
    case 3:
        if (strncmp(p, "match-leak-kinds:", 17) == 0) {
            r->s->kinds = leak_kinds(p + 17);
            if (r->s->kinds < 0) {
                r->s->kinds = 0;
                bad(r, "unknown leak kind", p);
            }
            return;
        }
        if (add_frame(r->s, p) != 0)
            bad(r, "not a frame line (fun:, obj:, src: or ...)", p);
        return;
    default:
        return;
    }
}

int vgsupp_load(const char *path, int complain,
                void (*add)(void *arg, const char *name, struct vg_supp *s),
                void *arg)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return errno;
    struct reader r = { path, complain, 0, 0, 0, NULL, NULL, add, arg };
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        r.nr++;
        read_line(&r, trim(line));
    }
    if (r.state != 0) {
        bad(&r, "the file ends inside a suppression", "{");
        r.state = 0;
        end_entry(&r);
    }
    int err = ferror(f) ? EIO : r.bad ? -1 : 0;
    free(line);
    fclose(f);
    return err;
}

/* ---- matching -------------------------------------------------------------- */

/* The names memcheck's first frame has: its replacements of the
 * allocation functions, mangled and not. */
static const char *const alloc_names[] = {
    "malloc", "calloc", "realloc", "reallocarray", "memalign",
    "posix_memalign", "aligned_alloc", "valloc", "pvalloc", "_Znwm", "_Znam",
    "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t", "operator new(unsigned long)",
    "operator new[](unsigned long)",
    "operator new(unsigned long, std::nothrow_t const&)",
    "operator new[](unsigned long, std::nothrow_t const&)",
    "operator new(unsigned long, std::align_val_t)",
    "operator new[](unsigned long, std::align_val_t)",
};
#define VG_PRELOAD "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so"

/* Frame line F against memcheck's allocation frame, which a libmtrace
 * stack does not have. */
static int matches_alloc_frame(const struct vg_supp_frame *f)
{
    if (f->kind == VGF_OBJ)
        return vg_wildcard(f->pattern, VG_PRELOAD);
    if (f->kind != VGF_FUN)
        return 0;
    for (size_t i = 0; i < sizeof alloc_names / sizeof alloc_names[0]; i++)
        if (vg_wildcard(f->pattern, alloc_names[i]))
            return 1;
    return 0;
}

static int matches_frame(const struct vg_supp_frame *f,
                         const struct view_frame *v)
{
    switch (f->kind) {
    case VGF_FUN:
        if (v->function == NULL)
            return strcmp(f->pattern, "*") == 0;
        return vg_wildcard(f->pattern, v->function) ||
               (f->demangled && strcmp(f->demangled, v->function) == 0);
    case VGF_OBJ:
        return vg_wildcard(f->pattern, v->module ? v->module : "???");
    case VGF_SRC:
        return v->file && vg_wildcard(f->pattern, path_base(v->file)) &&
               (f->line == 0 || f->line == v->line);
    default:
        return 1;
    }
}

/* Frame lines [I, N) against frames [K, F->n): every frame line must be
 * used; the stack may go on below the last one. */
static int match_from(const struct vg_supp *s, size_t i,
                      const struct view_frames *f, size_t k)
{
    for (; i < s->n; i++, k++) {
        if (s->f[i].kind == VGF_ANY) {
            for (size_t j = k; j <= f->n; j++)
                if (match_from(s, i + 1, f, j))
                    return 1;
            return 0;
        }
        if (k >= f->n || !matches_frame(&s->f[i], &f->v[k]))
            return 0;
    }
    return 1;
}

int vgsupp_match(const struct vg_supp *s, const struct view_frames *f,
                 int cls)
{
    static const struct view_frames none = { NULL, 0, 0 };
    if (cls >= 0 && !(s->kinds >> cls & 1))
        return 0;
    if (f == NULL)
        f = &none;
    if (s->n == 0)
        return 1;
    if (match_from(s, 0, f, 0))
        return 1;
    /* memcheck's allocation frame first, then the stack */
    if (s->f[0].kind == VGF_ANY)
        return 0; /* "..." already covered it */
    return matches_alloc_frame(&s->f[0]) && match_from(s, 1, f, 0);
}
