// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The report table: one row per key, self and total shares of all samples
 * that passed the filters, the way perf report --children prints them. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "render/report.h"
#include "base/term_safe.h"

static const char *const field_title[VF_MAX] = {
	[VF_COMM] = "Command", [VF_DSO] = "Shared Object", [VF_SYMBOL] = "Symbol",
};

void report__defaults(struct report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fields[0] = VF_COMM;
	o->fields[1] = VF_DSO;
	o->fields[2] = VF_SYMBOL;
	o->nfields = 3;
}

/* Column widths: the longest command and file in the rows shown (bounded),
 * in the terminal's columns, as term_safe prints them. */
static void widths(const struct vtable *t, size_t shown, int *wcomm, int *wdso)
{
	size_t i, n;

	*wcomm = 7;
	*wdso = 13;
	for (i = 0; i < shown; i++) {
		const struct vkey *k = &t->rows[i].key;

		n = k->comm ? term_safe__width(k->comm) : 0;
		if ((int)n > *wcomm)
			*wcomm = n > 24 ? 24 : (int)n;
		n = k->dso ? term_safe__width(k->dso) : 0;
		if ((int)n > *wdso)
			*wdso = n > 40 ? 40 : (int)n;
	}
}

/* Names are other users' (comms, files, symbols): escaped, padded by
 * columns, not bytes. */
static void print_field(FILE *out, const struct vkey *k, enum vfield f, int wcomm, int wdso)
{
	switch (f) {
	case VF_COMM:
		fputs("  ", out);
		term_safe__fputs(k->comm[0] ? k->comm : "[unknown]", (size_t)wcomm, out);
		break;
	case VF_DSO:
		fputs("  ", out);
		term_safe__fputs(k->dso[0] ? k->dso : "[unknown]", (size_t)wdso, out);
		break;
	default:
		fprintf(out, "  %s ", vtable__mark(k->kind));
		term_safe__fputs(k->name, 0, out);
		break;
	}
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0;
}

static void print_rows(const struct vtable *t, const struct report_opts *o, FILE *out)
{
	size_t shown = 0, i;
	int wcomm, wdso, j;

	while (shown < t->nrows &&
	       share(o->children ? t->rows[shown].total : t->rows[shown].self, t->total) >=
	       o->percent_limit && (o->percent_limit > 0 || t->rows[shown].self || o->children))
		shown++;
	widths(t, shown, &wcomm, &wdso);
	fprintf(out, "#     Self     Total");
	for (j = 0; j < o->nfields; j++)
		fprintf(out, "  %-*s", o->fields[j] == VF_COMM ? wcomm : o->fields[j] == VF_DSO ?
			wdso : 0, field_title[o->fields[j]]);
	fprintf(out, "\n");
	for (i = 0; i < shown; i++) {
		const struct vrow *r = &t->rows[i];

		fprintf(out, "  %6.2f%%  %6.2f%%", share(r->self, t->total), share(r->total, t->total));
		for (j = 0; j < o->nfields; j++)
			print_field(out, &r->key, o->fields[j], wcomm, wdso);
		fprintf(out, "\n");
	}
	if (shown < t->nrows)
		fprintf(out, "# %zu more rows %s\n", t->nrows - shown, o->percent_limit > 0 ?
			"under --percent-limit" : "with no self samples (--children shows them)");
}

int report__write(const struct vprof *v, const struct report_opts *o, FILE *out)
{
	struct vtable t;
	int err = vtable__build(v, o->fields, o->nfields, &o->filter, &t);

	if (err)
		return err;
	vtable__sort(&t, o->children);
	fputs("# bpfprof report", out);
	if (o->source) {
		fputs(" of ", out);
		term_safe__fputs(o->source, 0, out);
	}
	fprintf(out, ": %" PRIu64 " samples in %" PRIu64 " stacks", t.total, t.stacks);
	if (t.total != v->total)
		fprintf(out, " (of %" PRIu64 ", filtered)", v->total);
	fprintf(out, "\n# Self: the function itself; Total: it and what it called. Sorted by %s.\n",
		o->children ? "total" : "self");
	print_rows(&t, o, out);
	vtable__free(&t);
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
