/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fields.h - the tokenizer and number parsers, each a faithful copy of the
 * behaviour of what glibc's Perl checker (or the addr2line it runs) does
 * with the same bytes:
 *   - split_fields: Perl's split(' '), i.e. awk-style splitting on
 *     [ \t\n\v\f\r]+ with leading whitespace skipped;
 *   - perl_hex: Perl's hex(): optional "0x"/"x" prefix (any case), hex
 *     digits with single '_' separators, stops at the first other byte or
 *     NUL, saturates on overflow (Perl then holds a float that printf %x
 *     prints as 0xffffffffffffffff);
 *   - c_strtou64_hex: strtoul(s, NULL, 16) on the bytes up to the first
 *     NUL, which is how addr2line (bfd_scan_vma) reads an address.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_FIELDS_H
#define MTC_FIELDS_H

#include "base/util.h"

int perl_is_space(unsigned char c);

/* Split LINE into at most MAX fields; returns how many were stored.  Fields
 * beyond MAX are not looked at (the Perl script never reads them). */
size_t split_fields(const char *line, size_t len, struct slice *out,
                    size_t max);

/* split_fields on the line that starts at P and ends at the first '\n'
 * before END, finding that newline in the same pass: *NL is set to it, or
 * to NULL when [P, END) holds no newline (the fields are then those of the
 * whole range). */
size_t split_line(const char *p, const char *end, struct slice *out, size_t max,
                  const char **nl);

uint64_t perl_hex(struct slice s);
uint64_t c_strtou64_hex(struct slice s);

/* Strict parsers for extension records: all bytes must be consumed.
 * Return 0 on success, -1 on a malformed or overflowing number. */
int parse_dec_u64(struct slice s, uint64_t *out);
int parse_0xhex_u64(struct slice s, uint64_t *out); /* requires "0x" */

/* The field starting at P (not whitespace) when it is "DEC:0xHEX", a "#s"
 * record's frame in a module, with both numbers as parse_dec_u64 and
 * parse_0xhex_u64 would accept them: returns 1 with *MID, *OFF and
 * *FIELD_END (END or the whitespace byte after the field) set.  Returns 0
 * for anything else, setting nothing (split the field and parse it in
 * full then).  One pass over the bytes: a compiler's stack records are
 * most of its log. */
int parse_frame_field(const char *p, const char *end, uint64_t *mid,
                      uint64_t *off, const char **field_end);

/* The value of field F when it is "KEY=VALUE" with a VALUE of at least one
 * byte (the "#v", "#t" and "#C" records' keys), else a slice of length 0. */
struct slice field_key_value(struct slice f, const char *key);

#endif
