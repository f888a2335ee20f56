/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgsupp.h - valgrind's suppression files, read by mtrace-check beside
 * LeakSanitizer's (suppress.h), so that a project's memcheck
 * suppressions silence the same leaks under mtrace-run:
 *
 *   {
 *      NAME
 *      Memcheck:Leak
 *      match-leak-kinds: definite,possible      (optional)
 *      fun:PATTERN | obj:PATTERN | src:FILE[:LINE] | ...
 *      ...
 *   }
 *
 * Only "Leak" entries apply (the other kinds are errors libmtrace does
 * not look for: skipped).  The frame lines are matched from the top of
 * the allocation stack, each frame in turn, "..." standing for any
 * number of frames, '*' and '?' for any text and any one character, as
 * memcheck does.  memcheck's stacks start at its own malloc (or new,
 * ...); a libmtrace stack starts at malloc's caller: a first frame line
 * that names an allocation function (or valgrind's preload object) is
 * matched against that missing frame.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_VGSUPP_H
#define MTC_VGSUPP_H

#include "symbolize/stackview.h"

enum vg_frame_kind { VGF_FUN, VGF_OBJ, VGF_SRC, VGF_ANY };

struct vg_supp_frame {
    enum vg_frame_kind kind;
    char *pattern;    /* fun:, obj:, src: file part */
    char *demangled;  /* fun: a mangled name without wildcards, readable */
    unsigned line;    /* src:FILE:LINE, 0: any */
};

struct vg_supp {
    int kinds; /* mask of (1 << enum leak_class) it applies to */
    struct vg_supp_frame *f;
    size_t n;
};

/* Whether the file at PATH reads as a valgrind suppression file: its first
 * line that is neither blank nor a comment is "{". */
int vgsupp_is_file(const char *path);

/* Calls ADD(ARG, NAME, SUPP) for each Leak entry of PATH (SUPP is the
 * caller's to free with vgsupp_free).  Returns 0, an errno, or -1 for a
 * malformed file (each error told as PATH:LINE when COMPLAIN). */
int vgsupp_load(const char *path, int complain,
                void (*add)(void *arg, const char *name, struct vg_supp *s),
                void *arg);
void vgsupp_free(struct vg_supp *s);

/* Whether S matches the stack F of a loss record of class CLS (an enum
 * leak_class; -1: any class). */
int vgsupp_match(const struct vg_supp *s, const struct view_frames *f,
                 int cls);

/* valgrind's wildcard match: '*' any text, '?' any one character. */
int vg_wildcard(const char *pattern, const char *text);

#endif
