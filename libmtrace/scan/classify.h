/* SPDX-License-Identifier: GPL-3.0-or-later */
/* classify.h - the verdict on each block once the mark is done: still
 * reachable, possibly lost, indirectly lost or definitely lost, as
 * valgrind's memcheck defines them; and memcheck's C++ heuristics, which
 * let an interior pointer count as a start pointer where C++ makes one
 * (new[] cookies, std::string representations, length-prefixed blocks,
 * secondary bases of multiple inheritance). */
#ifndef MT_CLASSIFY_H
#define MT_CLASSIFY_H
#include "scan/mark.h"

enum verdict {
    VERDICT_REACHABLE,
    VERDICT_POSSIBLE,
    VERDICT_INDIRECT,
    VERDICT_DEFINITE,
    VERDICT_COUNT
};

/* Nonzero when the interior pointer PTR into block I is one a heuristic
 * accepts as reaching the block (memcheck's "reachable via heuristic"). */
int heuristic_reaches(struct blockset *bs, uintptr_t ptr, size_t i);

/* After mark_drain(): every UNREACHED block that no other lost block
 * reaches stays UNREACHED (definitely lost) and heads a clique; the lost
 * blocks reached from it become INDIRECT with bs->leader set to it, and
 * their bytes add up in bs->indirect[leader].  A leaked cycle has one
 * definitely lost block (the lowest address), the rest indirect.
 * Returns 0, or -1 when out of memory (the blocks then all count as
 * definitely lost). */
int classify_lost(struct blockset *bs);

enum verdict block_verdict(const struct blockset *bs, size_t i);

/* The names doc/format.md gives the classes in "#c" records, and the
 * words of reports. */
char verdict_letter(enum verdict v);
const char *verdict_name(enum verdict v); /* "definitely-lost", ... */

#endif
