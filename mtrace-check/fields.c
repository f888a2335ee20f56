/* fields.c - tokenizer and number parsers (see fields.h for the rules).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#include "fields.h"

int perl_is_space(unsigned char c)
{
	/* Perl >= 5.18 \s on byte strings: \t \n \v \f \r and space.  Verified
	 * against perl 5.36 for all 256 byte values. */
	return c == ' ' || (c >= '\t' && c <= '\r');
}

size_t split_fields(const char *line, size_t len, struct slice *out, size_t max)
{
	size_t i = 0, count = 0;

	while (count < max) {
		while (i < len && perl_is_space((unsigned char)line[i]))
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && !perl_is_space((unsigned char)line[i]))
			i++;
		out[count].p = line + start;
		out[count].n = i - start;
		count++;
	}
	return count;
}

static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

uint64_t perl_hex(struct slice s)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t n = s.n, i = 0;
	uint64_t v = 0;
	int overflow = 0;

	if (n >= 1 && (p[0] == 'x' || p[0] == 'X'))
		i = 1;
	else if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		i = 2;
	for (; i < n && p[i] != '\0'; i++) {
		int d = hex_value(p[i]);
		if (d < 0) {
			/* One '_' between digits is allowed, as in Perl's grok_hex. */
			if (p[i] == '_' && i + 1 < n && hex_value(p[i + 1]) >= 0)
				continue;
			break;
		}
		if (v >> 60)
			overflow = 1;
		v = (v << 4) | (uint64_t)d;
	}
	return overflow ? UINT64_MAX : v;
}

uint64_t c_strtou64_hex(struct slice s)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t n = s.n, i = 0;
	uint64_t v = 0;
	int negative = 0, overflow = 0, digits = 0;

	/* Up to the first NUL: that is where the exec'd argument would end. */
	for (size_t k = 0; k < n; k++)
		if (p[k] == '\0') {
			n = k;
			break;
		}
	while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
		i++;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		negative = p[i++] == '-';
	/* "0x" is a prefix only when a hex digit follows; else "0" is the number. */
	if (i + 2 < n && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X') &&
	    hex_value(p[i + 2]) >= 0)
		i += 2;
	for (; i < n; i++) {
		int d = hex_value(p[i]);
		if (d < 0)
			break;
		digits = 1;
		if (v >> 60)
			overflow = 1;
		v = (v << 4) | (uint64_t)d;
	}
	if (!digits)
		return 0;
	if (overflow)
		return UINT64_MAX;
	return negative ? (uint64_t)0 - v : v;
}

int parse_dec_u64(struct slice s, uint64_t *out)
{
	uint64_t v = 0;

	if (s.n == 0 || s.n > 19)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s.p[i] - '0');
	}
	*out = v;
	return 0;
}

int parse_0xhex_u64(struct slice s, uint64_t *out)
{
	uint64_t v = 0;

	if (s.n < 3 || s.p[0] != '0' || s.p[1] != 'x' || s.n > 18)
		return -1;
	for (size_t i = 2; i < s.n; i++) {
		int d = hex_value((unsigned char)s.p[i]);
		if (d < 0)
			return -1;
		v = (v << 4) | (uint64_t)d;
	}
	*out = v;
	return 0;
}
