/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stackview.c - readable frames for a recorded stack (see stackview.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/stackview.h"
#include "base/diag.h"
#include "symbolize/symbolizer.h"
#include "base/util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *user_binary;

void view_init(const char *binary)
{
    user_binary = binary;
}

/* A file whose build-id contradicts the log would give wrong lines. */
static int same_build(struct objfile *o, const char *logged)
{
    const char *id = sym_build_id(o);
    return !logged[0] || !id[0] || strcmp(id, logged) == 0;
}

static struct objfile *try_file(const char *path, const struct module *m)
{
    struct objfile *o = sym_open(path);
    return sym_usable(o) && same_build(o, m->build_id) ? o : NULL;
}

/* The debug file installed for a build-id, for a module whose own file is
 * gone or was replaced since the run. */
static struct objfile *try_build_id_file(const struct module *m)
{
    char path[300];

    if (strlen(m->build_id) < 4)
        return NULL;
    snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%.2s/%s.debug",
             m->build_id, m->build_id + 2);
    return access(path, R_OK) == 0 ? try_file(path, m) : NULL;
}

static struct objfile *module_object(struct ext_store *x, struct module *m)
{
    if (m->obj_resolved)
        return m->obj;
    m->obj_resolved = 1;
    int is_program = x->program && strcmp(m->path, x->program) == 0;
    if (is_program && user_binary)
        m->obj = try_file(user_binary, m);
    if (!m->obj)
        m->obj = try_file(m->path, m);
    if (!m->obj)
        m->obj = try_build_id_file(m);
    if (!m->obj)
        diag(m->path, 0,
             "no usable file for this module (missing, not ELF, or "
             "build-id differs); using the names recorded in the log");
    return m->obj;
}

static struct view_frame *push(struct view_frames *out)
{
    if (out->n == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 32;
        out->v = xrealloc(out->v, out->cap * sizeof *out->v);
    }
    struct view_frame *f = &out->v[out->n++];
    memset(f, 0, sizeof *f);
    return f;
}

void view_frame_ref(struct ext_store *x, const struct frame_ref *ref,
                    struct view_frames *out)
{
    if (ref->module < 0) {
        struct view_frame *f = push(out);
        f->off = ref->off;
        f->unknown_module = ref->module == FRAME_UNKNOWN_MODULE;
        if (ref->module == FRAME_NO_MODULE) {
            const struct frame_name *n = ext_absolute_name(x, ref->off);
            f->function = n ? n->name : NULL;
        }
        return;
    }
    struct module *m = &x->mods[ref->module];
    struct objfile *o = module_object(x, m);
    /* Return addresses point after the call: look up the call itself. */
    uint64_t vma = ref->off ? ref->off - 1 : 0;
    const struct sym_result *r = o ? sym_frames(o, vma) : NULL;
    const struct frame_name *logged = ext_frame_name(m, ref->off);
    size_t first = out->n;

    for (unsigned i = 0; r && i < r->nframes; i++) {
        struct view_frame *f = push(out);
        f->function = r->frames[i].function;
        f->file = r->frames[i].file;
        f->line = r->frames[i].line;
        f->inlined = r->frames[i].inlined;
    }
    if (out->n == first)
        push(out);
    for (size_t i = first; i < out->n; i++) {
        out->v[i].module = m->path;
        out->v[i].off = ref->off;
    }
    /* dladdr's name is the outermost function holding the address. */
    if (!out->v[out->n - 1].function && logged)
        out->v[out->n - 1].function = logged->name;
}

void view_stack(struct ext_store *x, const struct stack *s,
                struct view_frames *out)
{
    out->n = 0;
    for (uint32_t i = 0; i < s->nframes; i++)
        view_frame_ref(x, &s->frames[i], out);
}
