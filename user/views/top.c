// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpfprof top's screen, drawn with ANSI escapes into a stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "render/table.h"
#include "base/term_safe.h"
#include "views/top.h"

#define HEAD_LINES	5	/* title, accounting, view, blank, column names */
#define LINE_MAX_BYTES	4096

enum top_key top__key(struct top_view *view, int c)
{
	switch (c) {
	case 'q': case 'Q':
		return TOP_KEY_QUIT;
	case 'k': case 'K':
		view->hide_kernel = !view->hide_kernel;
		return TOP_KEY_REDRAW;
	case 'u': case 'U':
		view->hide_user = !view->hide_user;
		return TOP_KEY_REDRAW;
	case 'p': case 'P':
		view->paused = !view->paused;
		return TOP_KEY_REDRAW;
	default:
		return TOP_KEY_NONE;
	}
}

/* One line of the screen, escaped (the names in it are other users':
 * term_safe.h), cut to cols columns on a character's boundary, cleared to
 * its end; the last line of the screen gets no newline (it would scroll the
 * screen up). */
static void put_line(FILE *out, int cols, bool last, const char *fmt, ...)
{
	char buf[LINE_MAX_BYTES], safe[LINE_MAX_BYTES];
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(buf, sizeof(buf), fmt, ap) < 0)
		buf[0] = '\0';
	va_end(ap);
	term_safe__escape(safe, sizeof(safe), buf, cols > 0 ? (size_t)cols : 0, NULL);
	fprintf(out, "%s\033[K%s", safe, last ? "" : "\n");
}

/* s escaped into buf, cut or padded with spaces to exactly cols columns. */
static const char *fit(char *buf, size_t size, const char *s, size_t cols)
{
	size_t used, len;

	term_safe__escape(buf, size, s, cols, &used);
	for (len = strlen(buf); used < cols && len + 1 < size; used++)
		buf[len++] = ' ';
	buf[len] = '\0';
	return buf;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *base_name(const char *dso)
{
	const char *slash = dso ? strrchr(dso, '/') : NULL;

	if (!dso || !*dso)
		return "[unknown]";
	return slash ? slash + 1 : dso;
}

static void put_head(const struct top_view *view, const struct top_status *st, int rows,
		     int cols, FILE *out)
{
	char title[LINE_MAX_BYTES], bar[LINE_MAX_BYTES];

	snprintf(title, sizeof(title), " bpfprof top: %s, every %.1f s%s", st->what, st->refresh,
		 view->paused ? "   PAUSED (p resumes)" : "");
	/* the title bar spans the width: a resize shows at once */
	fprintf(out, "\033[7m%s\033[0m\033[K%s", fit(bar, sizeof(bar), title, cols > 0 ?
		(size_t)cols : 0), rows > 1 ? "\n" : "");
	if (rows > 1)
		put_line(out, cols, rows == 2, "interval %" PRIu64 ": %" PRIu64 " samples, %" PRIu64
			 " lost; since start: %" PRIu64 " samples, %" PRIu64 " lost; BPF-side total %"
			 PRIu64, st->intervals, st->samples, st->lost, st->all_samples, st->all_lost,
			 st->bpf_total);
	if (rows > 2)
		put_line(out, cols, rows == 3, "kernel frames %s, user frames %s    keys: q quit, "
			 "k kernel, u user, p pause", view->hide_kernel ? "HIDDEN" : "shown",
			 view->hide_user ? "HIDDEN" : "shown");
	if (rows > 3)
		put_line(out, cols, rows == 4, "%s", "");
	if (rows > 4)
		put_line(out, cols, rows == 5, "  Self%%  Total%%    Samples  %-20s  Symbol",
			 "Shared Object");
}

/* The rows that fit, hottest by self first. */
static int put_table(const struct vprof *v, const struct top_view *view, int lines, int cols,
		     FILE *out)
{
	static const enum vfield fields[] = { VF_DSO, VF_SYMBOL };
	struct vfilter f = { .hide_kernel = view->hide_kernel, .hide_user = view->hide_user };
	struct vtable t = { 0 };
	char dso[LINE_MAX_BYTES];
	int i, err;

	if (lines <= 0)
		return 0;
	if (!v) {
		put_line(out, cols, lines == 1, "  (waiting for the first interval)");
		return 0;
	}
	err = vtable__build(v, fields, 2, &f, &t);
	if (err)
		return err;
	vtable__sort(&t, false);
	if (view->hide_kernel && view->hide_user)
		put_line(out, cols, lines == 1, "  (kernel and user frames hidden: k or u shows them)");
	else if (!t.total)
		put_line(out, cols, lines == 1, "  (no samples in this interval)");
	for (i = 0; i < lines && (size_t)i < t.nrows && t.total; i++) {
		const struct vrow *r = &t.rows[i];

		put_line(out, cols, i == lines - 1, "%6.2f%% %6.2f%% %10" PRIu64 "  %s  %s %s",
			 share(r->self, t.total), share(r->total, t.total), r->self,
			 fit(dso, sizeof(dso), base_name(r->key.dso), 20), vtable__mark(r->key.kind),
			 r->key.name);
	}
	vtable__free(&t);
	return 0;
}

int top__render(const struct vprof *v, const struct top_view *view,
		const struct top_status *st, int rows, int cols, FILE *out)
{
	int err;

	fputs("\033[H", out);
	put_head(view, st, rows, cols, out);
	err = put_table(v, view, rows - HEAD_LINES, cols, out);
	fputs("\033[J", out);	/* below the last line drawn */
	return err;
}
