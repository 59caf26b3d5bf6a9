// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/views: reading folded and pprof, the report table,
 * the flame tree, diff. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "aggregate.h"
#include "diff.h"
#include "fgtree.h"
#include "pprof.h"
#include "report.h"
#include "vprof.h"

TestSuite(views, .fini = check_leaks);

static struct vprof *parse(const char *text)
{
	struct vprof *v = NULL;

	cr_assert_eq(vprof__parse("test", (const uint8_t *)text, strlen(text), &v), 0);
	return v;
}

static char *render_report(const struct vprof *v, const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(report__write(v, o, f), 0);
	fclose(f);
	return buf;
}

Test(views, folded_markers_kinds_and_comments)
{
	struct vprof *v = parse("# comment\r\napp;main;work;vfs_read_[k] 3\r\n\napp;main;inl_[i] 2\n"
				"app;main;libx.so+0x1f 1");

	cr_expect_eq(v->total, 6);
	cr_expect_eq(v->nstacks, 3);
	cr_expect_str_eq(v->stacks[0].comm, "app");
	cr_assert_eq(v->stacks[0].depth, 3);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[2]].name, "vfs_read");
	cr_expect_eq(v->frames[v->stacks[0].frames[2]].kind, VK_KERNEL);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[2]].dso, "[kernel.kallsyms]");
	cr_expect_eq(v->frames[v->stacks[1].frames[1]].kind, VK_INLINE);
	cr_expect_str_eq(v->frames[v->stacks[2].frames[1]].dso, "libx.so");
	/* main is one frame, shared */
	cr_expect_eq(v->stacks[0].frames[0], v->stacks[1].frames[0]);
	vprof__free(v);
}

Test(views, folded_bad_line_is_einval)
{
	struct vprof *v = NULL;
	const char *bad[] = { "app;main\n", "app;main 12x\n", "app;main -3\n", "app main 99999999999999999999999\n" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(vprof__parse("t", (const uint8_t *)bad[i], strlen(bad[i]), &v), -EINVAL,
			     "%s", bad[i]);
}

/* bpfprof's own pprof, read back: the same stacks, kinds and counts. */
Test(views, pprof_round_trip)
{
	struct pframe fr[] = {
		{ .name = "main", .mapping = "/bin/app", .build_id = "" },
		{ .name = "work", .mapping = "/bin/app", .build_id = "", .addr = 0x10 },
		{ .name = "vfs_read", .mapping = "[kernel.kallsyms]", .build_id = "", .kernel = true },
	};
	struct profile *p = profile__new();
	struct vprof *v = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(profile__add(p, 0, "app", 42, 43, 7, fr, 3), 0);
	cr_assert_eq(profile__add(p, 0, "app", 42, 43, 5, fr, 2), 0);
	cr_assert_eq(pprof__write(p, NULL, f), 0);
	fclose(f);
	cr_assert_eq(vprof__parse("t", (const uint8_t *)buf, len, &v), 0);
	cr_expect_eq(v->total, 12);
	cr_assert_eq(v->nstacks, 2);
	cr_expect_str_eq(v->stacks[0].comm, "app");
	cr_expect_eq(v->stacks[0].pid, 42);
	cr_assert_eq(v->stacks[0].depth, 3);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[0]].name, "main");
	cr_expect_str_eq(v->frames[v->stacks[0].frames[0]].dso, "/bin/app");
	cr_expect_eq(v->frames[v->stacks[0].frames[2]].kind, VK_KERNEL);
	vprof__free(v);
	free(buf);
	profile__free(p);
}

Test(views, report_self_total_and_filters)
{
	struct vprof *v = parse("a;main;f;g 30\na;main;f 10\na;main;g 20\nb;main;g 40\n");
	struct report_opts o;
	char *out;

	report__defaults(&o);
	o.fields[0] = VF_SYMBOL;
	o.nfields = 1;
	out = render_report(v, &o);
	/* g: self 90 of 100, total 90; f: self 10, total 40; main: total 100 */
	cr_expect(strstr(out, "   90.00%   90.00%  [.] g\n   10.00%   40.00%  [.] f\n") != NULL, "%s", out);
	cr_expect(strstr(out, "1 more rows") != NULL, "%s", out);
	free(out);
	o.filter.comm = "a";
	o.children = true;
	out = render_report(v, &o);
	cr_expect(strstr(out, "60 samples in 3 stacks (of 100, filtered)") != NULL, "%s", out);
	cr_expect(strstr(out, "    0.00%  100.00%  [.] main\n   83.33%   83.33%  [.] g\n") != NULL, "%s", out);
	free(out);
	vprof__free(v);
}

/* A recursive function counts once in its total per stack. */
Test(views, recursion_counted_once)
{
	struct vprof *v = parse("a;r;r;r 10\n");
	struct report_opts o;
	char *out;

	report__defaults(&o);
	o.nfields = 1;
	o.fields[0] = VF_SYMBOL;
	out = render_report(v, &o);
	cr_expect(strstr(out, "  100.00%  100.00%  [.] r\n") != NULL, "%s", out);
	free(out);
	vprof__free(v);
}

Test(views, tree_preorder_by_name_with_before)
{
	struct vprof *v = parse("a;m;z 3\na;m;b 2\na;m 1\n");
	struct vprof *before = parse("a;m;b 4\na;x 4\n");
	struct vfilter f = { 0 };
	struct fgtree t;

	cr_assert_eq(fgtree__build(v, before, &f, &t), 0);
	/* all, a, m, b, z */
	cr_assert_eq(t.n, 5);
	cr_expect_eq(t.value[0], 6);
	cr_expect_str_eq(v->frames[t.frame[3]].name, "b");
	cr_expect_eq(t.depth[3], 3);
	cr_expect_eq(t.value[4], 3);
	cr_expect_eq(t.total_before, 8);
	cr_expect_eq(t.before[1], 8);	/* a: both BEFORE stacks */
	cr_expect_eq(t.before[2], 4);	/* m: a;x is not AFTER's */
	cr_expect_eq(t.before[3], 4);
	cr_expect_eq(t.before[4], 0);
	fgtree__free(&t);
	vprof__free(v);
	vprof__free(before);
}

Test(views, diff_largest_change_first)
{
	struct vprof *b = parse("a;m;stay 50\na;m;grow 25\na;m;shrink 25\n");
	struct vprof *a = parse("a;m;stay 100\na;m;grow 95\na;m;shrink 5\n");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(diff__write_table(b, a, 10, f), 0);
	fclose(f);
	/* grow 25% -> 47.5%, shrink 25% -> 2.5%: equal size, by name */
	cr_expect(strstr(buf, "  +22.50    25.00%    47.50%  [.] grow\n  -22.50    25.00%     2.50%  [.] shrink\n") != NULL,
		  "%s", buf);
	free(buf);
	vprof__free(a);
	vprof__free(b);
}
