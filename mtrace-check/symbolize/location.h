/* SPDX-License-Identifier: GPL-3.0-or-later */
/* location.h - glibc's Perl checker's location(): turns a WHERE field into
 * the caller string printed in warnings and in the leak table.
 *
 * The three patterns of the script are matched exactly as Perl's regex
 * engine would (greedy, first match wins):
 *   1. /.*[[](0x[^]]*)]:(.)* /  -> "FCT @ ADDR" unless addr2line -e BINARY
 *      resolves ADDR (FCT is the *last* character after "]:", a quirk);
 *   2. /^(.*):.*[[](0x[^]]*)]$/ -> addr2line -e PROG (ADDR + load base of
 *      PROG from ld.so), then ADDR; else ADDR;
 *   3. /^.*[[](0x[^]]*)]$/      -> addr2line -e BINARY ADDR, else ADDR;
 * otherwise the string itself.  Results are cached by the ADDR text alone,
 * across all three forms, as the script does; addr2line is asked only when
 * a BINARY was given.  "??:0" counts as unresolved, "??:?" does not.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_LOCATION_H
#define MTC_LOCATION_H

#include "symbolize/ldtrace.h"
#include "base/maps.h"

struct locator {
    const char *binary;        /* NULL when none was given */
    const char *prog;          /* BINARY, or "./BINARY" without a slash */
    struct ldtrace_run ld_run; /* started with the locator */
    int ld_loaded;
    struct strmap ld_bases; /* path -> uint64_t * (ld.so's list) */
    struct strmap cache;    /* ADDR text -> struct slice * */
};

void locator_init(struct locator *l, const char *binary);
void locator_destroy(struct locator *l);

/* The caller string for WHERE; valid until locator_destroy. */
struct slice locate(struct locator *l, struct slice where);

/* Pattern matching alone, for the unit tests.  Each returns 1 on a match
 * and fills the captures; FCT->p is NULL when "(.)*" matched nothing. */
int loc_match_form1(struct slice s, struct slice *addr, struct slice *fct);
int loc_match_form2(struct slice s, struct slice *prog, struct slice *addr);
int loc_match_form3(struct slice s, struct slice *addr);

#endif
