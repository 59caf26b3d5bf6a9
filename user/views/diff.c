// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Both profiles' self shares per function, joined by name and kind. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "views/diff.h"
#include "render/table.h"
#include "base/term_safe.h"

struct change {
	const char *name;
	enum frame_kind kind;
	double before, after;	/* self shares, % */
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct vrow *a = pa, *b = pb;
	int c = strcmp(a->key.name, b->key.name);

	return c ? c : (int)a->key.kind - (int)b->key.kind;
}

static int cmp_change(const void *pa, const void *pb)
{
	const struct change *a = pa, *b = pb;
	double da = a->after - a->before, db = b->after - b->before;

	da = da < 0 ? -da : da;
	db = db < 0 ? -db : db;

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->name, b->name);
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

/* Merge-joins the two tables, both sorted by (name, kind). */
static size_t join(const struct vtable *b, const struct vtable *a, struct change *out)
{
	size_t i = 0, j = 0, n = 0;

	while (i < b->nrows || j < a->nrows) {
		int c = i == b->nrows ? 1 : j == a->nrows ? -1 : cmp_key(&b->rows[i], &a->rows[j]);
		const struct vrow *r = c <= 0 ? &b->rows[i] : &a->rows[j];

		out[n] = (struct change){ .name = r->key.name, .kind = r->key.kind };
		if (c <= 0)
			out[n].before = share(b->rows[i++].self, b->total);
		if (c >= 0)
			out[n].after = share(a->rows[j++].self, a->total);
		if (out[n].before || out[n].after)
			n++;
	}
	return n;
}

int diff__write_table(const struct vprof *before, const struct vprof *after, size_t limit,
		      FILE *out)
{
	static const enum vfield by_symbol[] = { VF_SYMBOL };
	struct vfilter all = { 0 };
	struct vtable tb, ta;
	struct change *ch = NULL;
	size_t n = 0, i;
	int err = vtable__build(before, by_symbol, 1, &all, &tb);

	if (err)
		return err;
	err = vtable__build(after, by_symbol, 1, &all, &ta);
	if (err) {
		vtable__free(&tb);
		return err;
	}
	vtable__sort(&tb, false);
	vtable__sort(&ta, false);
	qsort(tb.rows, tb.nrows, sizeof(*tb.rows), cmp_key);
	qsort(ta.rows, ta.nrows, sizeof(*ta.rows), cmp_key);
	ch = malloc((tb.nrows + ta.nrows + 1) * sizeof(*ch));
	if (ch) {
		n = join(&tb, &ta, ch);
		qsort(ch, n, sizeof(*ch), cmp_change);
		fprintf(out, "# bpfprof diff: before %" PRIu64 " samples, after %" PRIu64 " samples; "
			"change in self share, percentage points\n#  Change    Before     After  Symbol\n",
			tb.total, ta.total);
		for (i = 0; i < n && i < limit; i++) {
			fprintf(out, "%+8.2f  %7.2f%%  %7.2f%%  %s ", ch[i].after - ch[i].before,
				ch[i].before, ch[i].after, vtable__mark(ch[i].kind));
			term_safe__fputs(ch[i].name, 0, out);	/* other users' names */
			fputc('\n', out);
		}
		if (n > limit)
			fprintf(out, "# %zu more functions (--limit)\n", n - limit);
	}
	free(ch);
	vtable__free(&tb);
	vtable__free(&ta);
	if (!ch)
		return -ENOMEM;
	return fflush(out) || ferror(out) ? -EIO : 0;
}
