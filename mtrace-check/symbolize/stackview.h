/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stackview.h - a recorded stack turned into frames a person can read:
 * function, file and line for each return address, inlined calls
 * expanded, names demangled, falling back to the "#f" names of the log
 * where the module file has nothing (missing, stripped, or not the file
 * that was traced, as told by its build-id).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_STACKVIEW_H
#define MTC_STACKVIEW_H

#include "read/records.h"

struct view_frame {
    const char *function; /* NULL: unknown */
    const char *file;     /* NULL: unknown */
    unsigned line;        /* 0: unknown */
    const char *module;   /* NULL: address outside every known module */
    int unknown_module;   /* the log named a module it never defined */
    uint64_t off;         /* as recorded: offset in module, or address */
    int inlined;          /* inlined into the next frame */
};

struct view_frames {
    struct view_frame *v;
    size_t n, cap;
};

/* BINARY (may be NULL) stands in for the traced executable when it is the
 * same file (same build-id) or the log's path is unusable. */
void view_init(const char *binary);

/* Append the readable frames of stack S to OUT (OUT->n reset first).
 * The strings stay valid until the program ends. */
void view_stack(struct ext_store *x, const struct stack *s,
                struct view_frames *out);

/* Append the readable frames of one recorded frame REF to OUT: one, or
 * more for inlined calls (what view_stack appends for it). */
void view_frame_ref(struct ext_store *x, const struct frame_ref *ref,
                    struct view_frames *out);

#endif
