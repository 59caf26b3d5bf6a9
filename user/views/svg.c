// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A static SVG flame graph in flamegraph.pl's manner, coloured by kind as
 * the page is. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define WIDTH	1200.0
#define ROW	16
#define TOP	36	/* room for the title */
#define MIN_PX	0.3

/* The well-formed UTF-8 character at s that XML 1.0 allows in text: its
 * length (1 to 4), 0 for a byte to escape. Refused: C0 controls (tab and
 * line breaks too: a name is one line), DEL, C1, an overlong form, a
 * surrogate (CESU/WTF-8 ED A0 80..ED BF BF: a Python lone surrogate),
 * past U+10FFFF, U+FFFE and U+FFFF, a cut sequence. */
static size_t xml_char(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
	    s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	if (s[0] == 0xe0)
		lo = 0xa0;	/* below: overlong */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* below: overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* above: a surrogate */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above: past U+10FFFF */
	if (!n || s[1] < lo || s[1] > hi)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* a NUL ends it here too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	return cp <= 0x9f || cp == 0xfffe || cp == 0xffff ? 0 : n;
}

/* A byte escaped as \xHH takes 4 columns, any other character 1. */
#define ESC_COLS 4

size_t svg__xml_text(const char *str, size_t max_cols, FILE *out)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t cols = 0, n;

	for (; *s; s += n) {
		n = xml_char(s);
		if (cols + (n ? 1 : ESC_COLS) > max_cols)
			break;
		cols += n ? 1 : ESC_COLS;
		if (!n) {
			fprintf(out, "\\x%02x", *s);	/* as the terminal and folded files show it */
			n = 1;
		} else if (n > 1 || !strchr("<>&\"'", *s)) {
			fwrite(s, 1, n, out);
		} else {
			fputs(*s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" :
			      *s == '"' ? "&quot;" : "&apos;", out);
		}
	}
	return (size_t)((const char *)s - str);
}

/* The columns svg__xml_text gives s. */
static size_t xml_cols(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t cols = 0, n;

	for (; *s; s += n ? n : 1) {
		n = xml_char(s);
		cols += n ? 1 : ESC_COLS;
	}
	return cols;
}

/* The page's palette: kernel blue, user warm, inline aqua, Python green, JIT purple. */
static void fill(const struct vframe *f, FILE *out)
{
	static const int hue[VK_MAX] = { 10, 205, 170, 95, 265, 0 }, spread[VK_MAX] = {
		45, 20, 15, 30, 20, 0 };
	unsigned int h = 2166136261u;
	const char *c;
	double r;

	for (c = f->name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	r = (double)h / 4294967296.0;
	if (f->kind == VK_ROOT)
		fprintf(out, "hsl(0,0%%,%d%%)", 72 + (int)(8 * r));
	else
		fprintf(out, "hsl(%d,%d%%,%d%%)", hue[f->kind] + (int)(spread[f->kind] * r),
			f->kind == VK_USER ? 90 : 55, 55 + (int)(10 * r));
}

static void frame_rect(const struct vprof *v, const struct fgtree *t, size_t i, double x,
		       double w, FILE *out)
{
	const struct vframe *f = &v->frames[t->frame[i]];
	double y = TOP + (double)(t->max_depth - t->depth[i]) * ROW;

	fputs("<g><title>", out);
	svg__xml_text(f->name, SIZE_MAX, out);
	fprintf(out, " (%" PRIu64 " samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
		"height=\"%d\" fill=\"", t->value[i], t->total ? 100.0 * t->value[i] / t->total : 0,
		x, y, w, ROW - 1);
	fill(f, out);
	fputs("\"/>", out);
	if (w > 21) {
		size_t fit = (size_t)((w - 4) / 7), cols = xml_cols(f->name);

		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\">", x + 3, y + ROW - 4);
		svg__xml_text(f->name, cols > fit ? fit - 2 : fit, out);
		fputs(cols > fit ? "..</text>" : "</text>", out);
	}
	fputs("</g>\n", out);
}

int svg__write(const struct vprof *v, const struct fgtree *t, const char *title, FILE *out)
{
	double *next = calloc(t->max_depth + 2, sizeof(*next));
	double scale = t->total ? WIDTH / (double)t->total : 0;
	size_t i = 0;

	if (!next)
		return -ENOMEM;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" "
		"width=\"%.0f\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" "
		"font-family=\"monospace\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#f8f8f8\"/>\n<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"16\">",
		WIDTH, TOP + (int)(t->max_depth + 1) * ROW + 4, WIDTH / 2);
	svg__xml_text(title ? title : "bpfprof", 200, out);
	fputs("</text>\n", out);
	while (i < t->n) {
		uint32_t d = t->depth[i];
		double x = d ? next[d] : 0, w = (double)t->value[i] * scale;

		next[d] = x + w;
		next[d + 1] = x;
		if (w < MIN_PX) {	/* and its subtree */
			for (i++; i < t->n && t->depth[i] > d; i++)
				;
			continue;
		}
		frame_rect(v, t, i, x, w, out);
		i++;
	}
	fputs("</svg>\n", out);
	free(next);
	return 0;
}
