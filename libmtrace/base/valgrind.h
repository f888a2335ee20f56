/* SPDX-License-Identifier: GPL-3.0-or-later */
/* valgrind.h - libmtrace preloaded into a program run under valgrind
 * (see valgrind.c). */
#ifndef MT_VALGRIND_H
#define MT_VALGRIND_H

/* valgrind's core is preloaded: the program runs on its synthetic CPU. */
int valgrind_running(void);
/* The valgrind tool whose preload replaces malloc and its relatives
 * ("memcheck", "helgrind", ...), or NULL.  Then libmtrace's wrappers are
 * never called and nothing is traced. */
const char *valgrind_allocator(void);

#endif
