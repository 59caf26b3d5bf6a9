// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bpfprof top's screen: keys, rows by self, kernel/user frames hidden,
 * every line cut to the width, the screen filled to its height and no more. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "views/top.h"

TestSuite(top, .fini = check_leaks);

/* main -> work -> read_zero [k] 3 times; main -> spin 5 times */
static struct vprof *sample_profile(void)
{
	struct vprof *v = vprof__new();
	uint32_t a[3], b[2];

	cr_assert_not_null(v);
	a[0] = b[0] = (uint32_t)vprof__frame(v, "main", "/bin/app", FK_USER);
	a[1] = (uint32_t)vprof__frame(v, "work", "/bin/app", FK_USER);
	a[2] = (uint32_t)vprof__frame(v, "read_zero", "[kernel.kallsyms]", FK_KERNEL);
	b[1] = (uint32_t)vprof__frame(v, "spin", "/lib/libhot.so", FK_USER);
	cr_assert_eq(vprof__add(v, "app", 1, a, 3, 3), 0);
	cr_assert_eq(vprof__add(v, "app", 1, b, 2, 5), 0);
	return v;
}

static char whole[8192];	/* the last screen rendered, lines not split */

/* The screen as text, escapes dropped; its lines in lines[]. */
static int render(const struct vprof *v, const struct top_view *view, int rows, int cols,
		  char *text, size_t size, char **lines, int max)
{
	struct top_status st = { .what = "cpu-clock at 99 Hz, system-wide", .refresh = 1,
				 .intervals = 4, .samples = 8, .all_samples = 30, .bpf_total = 30 };
	char *buf = NULL, *p, *q;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = 0;

	cr_assert_not_null(f);
	cr_assert_eq(top__render(v, view, &st, rows, cols, f), 0);
	fclose(f);
	for (p = buf, q = text; *p && q < text + size - 1; p++) {	/* drop CSI sequences */
		if (*p == '\033') {
			for (p += 2; *p && !(*p >= '@' && *p <= '~'); p++)
				;
			continue;
		}
		*q++ = *p;
	}
	*q = '\0';
	free(buf);
	snprintf(whole, sizeof(whole), "%s", text);
	for (p = text; *p && n < max; p = q + 1) {	/* blank lines count */
		lines[n++] = p;
		q = strchr(p, '\n');
		if (!q)
			break;
		*q = '\0';
	}
	return n;
}

Test(top, keys)
{
	struct top_view view = { 0 };

	cr_expect_eq(top__key(&view, 'q'), TOP_KEY_QUIT);
	cr_expect_eq(top__key(&view, 'k'), TOP_KEY_REDRAW);
	cr_expect(view.hide_kernel);
	cr_expect_eq(top__key(&view, 'K'), TOP_KEY_REDRAW);
	cr_expect_not(view.hide_kernel);
	cr_expect_eq(top__key(&view, 'u'), TOP_KEY_REDRAW);
	cr_expect(view.hide_user);
	cr_expect_eq(top__key(&view, 'p'), TOP_KEY_REDRAW);
	cr_expect(view.paused);
	cr_expect_eq(top__key(&view, 'x'), TOP_KEY_NONE);
}

Test(top, rows_by_self_with_totals)
{
	struct vprof *v = sample_profile();
	struct top_view view = { 0 };
	char text[8192], *l[64];
	int n = render(v, &view, 30, 100, text, sizeof(text), l, 64);

	cr_assert_geq(n, 9);
	cr_expect(strstr(l[0], "bpfprof top: cpu-clock at 99 Hz, system-wide, every 1.0 s"));
	cr_expect(strstr(l[1], "interval 4: 8 samples"));
	cr_expect(strstr(l[4], "Self%"));
	cr_expect(strstr(l[5], " 62.50%  62.50% ") && strstr(l[5], "libhot.so") &&
		  strstr(l[5], "[.] spin"), "%s", l[5]);
	cr_expect(strstr(l[6], " 37.50%  37.50% ") && strstr(l[6], "[k] read_zero"), "%s", l[6]);
	cr_expect(strstr(l[7], "  0.00% 100.00% ") && strstr(l[7], "[.] main"), "%s", l[7]);
	vprof__free(v);
}

Test(top, kernel_or_user_hidden)
{
	struct vprof *v = sample_profile();
	struct top_view view = { .hide_kernel = true };
	char text[8192], *l[64];
	int n = render(v, &view, 30, 100, text, sizeof(text), l, 64), i;

	for (i = 5; i < n; i++)
		cr_expect_null(strstr(l[i], "[k]"), "%s", l[i]);
	cr_expect(strstr(l[2], "kernel frames HIDDEN"));
	cr_expect(strstr(whole, " 37.50%  37.50% ") && strstr(whole, "[.] work"));	/* the new leaf */
	view = (struct top_view){ .hide_user = true };
	n = render(v, &view, 30, 100, text, sizeof(text), l, 64);
	for (i = 5; i < n; i++)
		cr_expect_null(strstr(l[i], "[.]"), "%s", l[i]);
	view.hide_kernel = true;
	render(v, &view, 30, 100, text, sizeof(text), l, 64);
	cr_expect(strstr(whole, "k or u shows them"));
	vprof__free(v);
}

Test(top, fits_the_screen)
{
	struct vprof *v = sample_profile();
	struct top_view view = { .paused = true };
	char text[8192], *l[64];
	int n = render(v, &view, 7, 30, text, sizeof(text), l, 64), i;

	cr_expect_eq(n, 7, "%d lines on a 7-line screen", n);
	for (i = 0; i < n; i++)
		cr_expect_leq(strlen(l[i]), 30, "line %d: '%s'", i, l[i]);
	cr_expect(strstr(l[0], " bpfprof top: cpu-clock at 99"));
	n = render(NULL, &view, 2, 30, text, sizeof(text), l, 64);
	cr_expect_eq(n, 2);
	n = render(NULL, &(struct top_view){ 0 }, 10, 80, text, sizeof(text), l, 64);
	cr_expect(strstr(whole, "waiting for the first interval"));
	vprof__free(v);
}
