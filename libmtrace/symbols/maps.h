/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maps.h - the process's memory mappings, read from /proc/self/maps with
 * raw system calls into a buffer on the stack: no stdio, no malloc, so it
 * may run inside the tracer (module paths, a reachability scan's roots).
 */
#ifndef MT_MAPS_H
#define MT_MAPS_H
#include <stddef.h>
#include <stdint.h>

struct mapping {
    uintptr_t start, end;
    char perms[5]; /* "rw-p" */
    uint64_t offset;
    const char *path; /* "" for anonymous; valid during the callback */
};

/* Calls FN on each mapping in address order until it returns nonzero;
 * returns that value, 0 after the last, or -1 when the file cannot be
 * read. */
int maps_each(int (*fn)(const struct mapping *m, void *arg), void *arg);
/* The path of the file mapped at START (a mapping that begins there) into
 * BUF; 0, or -1 when none is (or it does not fit).  A " (deleted)" suffix
 * is dropped. */
int maps_path_at(uintptr_t start, char *buf, size_t size);

#endif
