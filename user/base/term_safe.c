// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Outside text made safe for a terminal: see term_safe.h for the rule. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/term_safe.h"

struct cp_range {
	uint32_t lo, hi;
};

/* Shown on the cell before them: combining marks, zero-width and
 * direction marks, variation selectors. */
static const struct cp_range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
	{ 0x064b, 0x065f }, { 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff }, { 0x200b, 0x200d },
	{ 0x2060, 0x2064 }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff }, { 0xe0100, 0xe01ef },
};

/* Escaped although well formed: the marks and overrides that reorder text
 * (a name could show its end first, or hide what follows it: "Trojan
 * Source") and the separators that break a line. */
static const struct cp_range reordering[] = {
	{ 0x061c, 0x061c }, { 0x200e, 0x200f }, { 0x2028, 0x202e }, { 0x2066, 0x2069 },
};

/* Two cells: East Asian wide and full-width characters, emoji. */
static const struct cp_range wide[] = {
	{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf },
	{ 0x4e00, 0x9fff }, { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
	{ 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
	{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

static bool in_ranges(uint32_t cp, const struct cp_range *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cp >= r[i].lo && cp <= r[i].hi)
			return true;
	return false;
}

static int cp_cols(uint32_t cp)
{
	if (cp < 0x300)
		return 1;
	if (in_ranges(cp, zero_width, sizeof(zero_width) / sizeof(zero_width[0])))
		return 0;
	return in_ranges(cp, wide, sizeof(wide) / sizeof(wide[0])) ? 2 : 1;
}

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* A well-formed sequence as Unicode's table 3-7 has them (no overlong
 * form, no surrogate, nothing past U+10FFFF): its length, the code point
 * in *cp; 0 if the bytes at s are not one. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;	/* below: overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* above: a surrogate */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* below: overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above: past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	*cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if (!is_cont(s[i]))	/* a NUL ends it here too */
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return n;
}

size_t term_safe__char(const char *str, int *cols)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80) {
		if (s[0] < 0x20 || s[0] == 0x7f)
			return 0;
		n = 1;
		cp = s[0];
	} else {
		n = utf8_decode(s, &cp);
		if (!n || cp <= 0x9f)	/* invalid, or a C1 control */
			return 0;
		if (in_ranges(cp, reordering, sizeof(reordering) / sizeof(reordering[0])))
			return 0;
	}
	if (cols)
		*cols = cp_cols(cp);
	return n;
}

size_t term_safe__utf8(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;

	if (s[0] && s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	return s[0] ? utf8_decode(s, cp) : 0;
}

size_t term_safe__escape_byte(unsigned char c, char out[TERM_SAFE_ESC_MAX])
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	if (c == '\n' || c == '\r') {
		out[1] = c == '\n' ? 'n' : 'r';
		out[2] = '\0';
		return 2;
	}
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 0xf];
	out[4] = '\0';
	return 4;
}

/* The next piece of s's escaped form: the character itself or its escape
 * in esc. Its bytes in *piece and *len, its columns in *cols; the bytes of s
 * it stands for returned (0 at the end of s). */
static size_t next_piece(const char *s, char esc[TERM_SAFE_ESC_MAX], const char **piece,
			 size_t *len, int *cols)
{
	size_t n;

	if (!*s)
		return 0;
	n = term_safe__char(s, cols);
	if (n) {
		*piece = s;
		*len = n;
		return n;
	}
	*len = term_safe__escape_byte((unsigned char)*s, esc);
	*piece = esc;
	*cols = (int)*len;
	return 1;
}

size_t term_safe__escape(char *buf, size_t size, const char *s, size_t max_cols, size_t *cols)
{
	char esc[TERM_SAFE_ESC_MAX];
	const char *piece;
	size_t used = 0, taken = 0, col = 0, len, n;
	int w;

	while ((n = next_piece(s + taken, esc, &piece, &len, &w))) {
		if (used + len >= size || col + (size_t)w > max_cols)
			break;
		memcpy(buf + used, piece, len);
		used += len;
		col += (size_t)w;
		taken += n;
	}
	buf[used] = '\0';
	if (cols)
		*cols = col;
	return taken;
}

size_t term_safe__width(const char *s)
{
	char esc[TERM_SAFE_ESC_MAX];
	const char *piece;
	size_t col = 0, len, n;
	int w;

	while ((n = next_piece(s, esc, &piece, &len, &w))) {
		col += (size_t)w;
		s += n;
	}
	return col;
}

void term_safe__fputs(const char *s, size_t pad, FILE *f)
{
	char esc[TERM_SAFE_ESC_MAX];
	const char *piece;
	size_t col = 0, len, n;
	int w;

	flockfile(f);
	while ((n = next_piece(s, esc, &piece, &len, &w))) {
		fwrite_unlocked(piece, 1, len, f);
		col += (size_t)w;
		s += n;
	}
	for (; col < pad; col++)
		putc_unlocked(' ', f);
	funlockfile(f);
}
