/* fmt.h - number formatting without stdio (stdio allocates and is not
 * reentrant).  Each writes into OUT, which must have room for 20 bytes, and
 * returns the end of what it wrote (no terminating NUL).  GPL-3.0-or-later. */
#ifndef MT_FMT_H
#define MT_FMT_H
#include <stddef.h>
#include <stdint.h>

/* Lowercase hex digits, no prefix: 0 -> "0", 0x1a -> "1a". */
char *fmt_hex(char *out, uint64_t v);
/* "0x" + hex, as printf("%p") for a non-NULL pointer. */
char *fmt_ptr(char *out, uint64_t v);
/* As printf("%#lx"): 0 -> "0", otherwise "0x" + hex. */
char *fmt_size(char *out, uint64_t v);
/* Decimal. */
char *fmt_dec(char *out, uint64_t v);

/* PATTERN into OUT (SIZE bytes) with each "%K" replaced by VALUES[i] where
 * K is KEYS[i]; any other "%" sequence is copied as it is.  Returns 0, or
 * -1 when OUT is too small. */
int fmt_expand(const char *pattern, const char *keys, const char *const *values,
               char *out, size_t size);

#endif
