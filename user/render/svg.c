// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A static SVG flame graph in flamegraph.pl's manner, coloured by kind as
 * the page is. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg.h"
#include "base/term_safe.h"

#define WIDTH	1200.0
#define ROW	16
#define TOP	36	/* room for the title */
#define MIN_PX	0.3

/* The character at s that XML 1.0 allows in text: its length (1 to 4), 0
 * for a byte to escape. The terminal's rule (term_safe.h: controls, marks
 * that reorder text, invalid UTF-8 such as a Python lone surrogate's CESU
 * bytes ED A0 80) and what XML forbids besides: U+FFFE and U+FFFF. */
static size_t xml_char(const unsigned char *s)
{
	size_t n = term_safe__char((const char *)s, NULL);

	return n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe ? 0 : n;
}

/* A byte escaped takes 4 columns at most (\xHH), any other character 1. */
#define ESC_COLS 4

size_t svg__xml_text(const char *str, size_t max_cols, FILE *out)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[TERM_SAFE_ESC_MAX];
	size_t cols = 0, n;

	for (; *s; s += n) {
		n = xml_char(s);
		if (cols + (n ? 1 : ESC_COLS) > max_cols)
			break;
		cols += n ? 1 : ESC_COLS;
		if (!n) {
			term_safe__escape_byte(*s, esc);	/* as the terminal and folded files show it */
			fputs(esc, out);
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

/* The page's hues (base/frame_kind.c's table), a lighter palette. */
static void fill(const struct vframe *f, FILE *out)
{
	const struct frame_kind_row *k = frame_kind__row(f->kind);
	unsigned int h = 2166136261u;
	const char *c;
	double r;

	for (c = f->name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	r = (double)h / 4294967296.0;
	if (f->kind == FK_ROOT)
		fprintf(out, "hsl(0,0%%,%d%%)", 72 + (int)(8 * r));
	else
		fprintf(out, "hsl(%d,%d%%,%d%%)", k->hue + (int)(k->spread * r),
			f->kind == FK_USER ? 90 : 55, 55 + (int)(10 * r));
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
