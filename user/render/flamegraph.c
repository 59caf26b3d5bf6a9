// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The flame graph page: the template (flamegraph_page.html, made a C array
 * at build time) with the tree as JSON in it: names, kinds, and three
 * numbers per node (frame, depth, value) in pre-order. The page lays it
 * out and draws it on a canvas, skipping what is thinner than a pixel, so
 * 100k stacks stay quick. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "render/fgtree.h"
#include "render/flamegraph.h"
#include "flamegraph_page.h"	/* build/: static const char flamegraph_page[] */
#include "render/svg.h"
#include "base/term_safe.h"

#define DATA_MARK	"@@BPFPROF_DATA@@"

/* A JSON string that is also safe inside <script> and, written to standard
 * output, on a terminal: a character term_safe.h refuses (C0, DEL, C1, a
 * mark that reorders text) as \u%04x, so the page still shows it as it is;
 * a byte of invalid UTF-8 as the visible text \xHH, as the terminal and
 * folded files show it; '<', '>', '&' as \u%04x. */
static void json_string(const char *s, FILE *out)
{
	char esc[TERM_SAFE_ESC_MAX];
	uint32_t cp;
	size_t n;

	putc('"', out);
	for (; *s; s += n) {
		n = term_safe__char(s, NULL);
		if (n > 1 || (n == 1 && !strchr("\"\\<>&", *s))) {
			fwrite(s, 1, n, out);
		} else if (n == 1 && (*s == '"' || *s == '\\')) {
			fprintf(out, "\\%c", *s);
		} else if (n || (n = term_safe__utf8(s, &cp))) {
			fprintf(out, "\\u%04" PRIx32, n == 1 ? (uint32_t)(unsigned char)*s : cp);
		} else {
			term_safe__escape_byte((unsigned char)*s, esc);
			fprintf(out, "\\%s", esc);	/* its backslash escaped */
			n = 1;
		}
	}
	putc('"', out);
}

static void write_numbers(FILE *out, const char *key, const uint64_t *vals, size_t n)
{
	size_t i;

	fprintf(out, ",\"%s\":[", key);
	for (i = 0; i < n; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, vals[i]);
	putc(']', out);
}

static void write_data(const struct vprof *v, const struct fgtree *t, const char *title,
		       bool diff, FILE *out)
{
	size_t i;

	fputs("{\"title\":", out);
	json_string(title ? title : "bpfprof", out);
	fprintf(out, ",\"unit\":\"samples\",\"total\":%" PRIu64, t->total);
	if (diff)
		fprintf(out, ",\"totalBefore\":%" PRIu64, t->total_before);
	fputs(",\"names\":[", out);
	for (i = 0; i < v->nframes; i++) {
		if (i)
			putc(',', out);
		json_string(v->frames[i].name, out);
	}
	fputs("],\"kinds\":[", out);
	for (i = 0; i < v->nframes; i++)
		fprintf(out, i ? ",%d" : "%d", (int)v->frames[i].kind);
	fputs("],\"palette\":[", out);
	for (i = 0; i < FK_MAX; i++) {
		const struct frame_kind_row *k = &frame_kinds[i];

		fputs(i ? ",[" : "[", out);
		json_string(k->name, out);
		fprintf(out, ",%d,%d,%d,%d,%d,%d]", k->hue, k->spread, k->sat, k->light,
			k->light_spread, k->legend);
	}
	fputs("],\"nodes\":[", out);
	for (i = 0; i < t->n; i++)
		fprintf(out, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu64, i ? "," : "", t->frame[i],
			t->depth[i], t->value[i]);
	putc(']', out);
	if (diff)
		write_numbers(out, "before", t->before, t->n);
	putc('}', out);
}

static int write_page(const struct vprof *v, const struct fgtree *t, const char *title, bool diff,
		      FILE *out)
{
	const char *mark = strstr(flamegraph_page, DATA_MARK);

	if (!mark)
		return -EINVAL;
	fwrite(flamegraph_page, 1, (size_t)(mark - flamegraph_page), out);
	write_data(v, t, title, diff, out);
	fputs(mark + strlen(DATA_MARK), out);
	return 0;
}

int flamegraph__write(struct vprof *v, const struct vprof *before, const struct fg_opts *o,
		      FILE *out)
{
	struct fgtree t;
	int err = fgtree__build(v, before, &o->filter, &t);

	if (err)
		return err;
	err = o->svg ? svg__write(v, &t, o->title, out) : write_page(v, &t, o->title, before, out);
	fgtree__free(&t);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}

int flamegraph__write_profile(const struct profile *p, bool svg, FILE *out)
{
	struct fg_opts o = { .title = "bpfprof", .svg = svg };
	struct vprof *v;
	int err = vprof__from_profile(p, &v);

	if (err)
		return err;
	err = flamegraph__write(v, NULL, &o, out);
	vprof__free(v);
	return err;
}
