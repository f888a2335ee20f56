/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compare.h - runs fastunwind_backtrace and libunwind's unw_backtrace from
 * one call site and compares their frames. */
#ifndef FU_COMPARE_H
#define FU_COMPARE_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

#define MAXF 128

/* A function that stays a frame of its own, called as written: GCC's
 * noipa (no inlining, cloning or cross-call analysis).  Clang has no such
 * attribute; noinline is what it needs for these extern functions. */
#ifdef __clang__
#define FU_NOIPA __attribute__((noinline))
#else
#define FU_NOIPA __attribute__((noipa))
#endif

struct capture {
    int n[2]; /* [0]: fastunwind, [1]: libunwind */
    void *frames[2][MAXF];
};

/* Fills C from both unwinders, called from the same instruction. */
void capture_here(struct capture *c);
/* Same, with room for MAX frames only. */
void capture_max(struct capture *c, int max);
/* 1 if both found the same frames; otherwise 0 and a description of the
 * difference, with symbol names, in MSG. */
int capture_same(const struct capture *c, char *msg, size_t len);
/* Both stacks side by side, differences marked with '*'. */
void capture_describe(const struct capture *c, char *msg, size_t len);
/* The walks capture_here() asks a memo for: up to this many frames. */
#define MEMO_TEST_DEPTH 64
/* From now on the fastunwind side walks with memo M (NULL: without). */
struct fastunwind_memo;
void capture_with_memo(struct fastunwind_memo *m);
/* A callback for code in other units: capture_here(arg). */
void capture_callback(void *arg);

#ifdef __cplusplus
}
#endif
#endif
