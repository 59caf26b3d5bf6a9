// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/render and user/views: reading folded and pprof,
 * the report table, the flame tree, diff. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "profile/aggregate.h"
#include "views/diff.h"
#include "render/fgtree.h"
#include "render/flamegraph.h"
#include "output/pprof.h"
#include "profile.pb-c.h"
#include "render/report.h"
#include "render/svg.h"
#include "render/vprof.h"

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

/* p as pprof (bpfprof's writer), read back by the views' reader. */
static struct vprof *pprof_round_trip(const struct profile *p)
{
	struct vprof *v = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(pprof__write(p, NULL, f), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(vprof__parse("t", (const uint8_t *)buf, len, &v), 0);
	free(buf);
	return v;
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
	cr_expect_eq(v->frames[v->stacks[0].frames[2]].kind, FK_KERNEL);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[2]].dso, "[kernel.kallsyms]");
	cr_expect_eq(v->frames[v->stacks[1].frames[1]].kind, FK_INLINE);
	cr_expect_str_eq(v->frames[v->stacks[2].frames[1]].dso, "libx.so");
	/* main is one frame, shared */
	cr_expect_eq(v->stacks[0].frames[0], v->stacks[1].frames[0]);
	vprof__free(v);
}

/* JIT frames (issue 25): "_[j]" is kind JIT in mapping [jit], and the
 * report marks it [j]; pprof's mapping [jit] (perf's "[JIT] tid N") too. */
Test(views, jit_frames_folded_pprof_report)
{
	struct vprof *v = parse("node;main;JS:*leaf a.js:1_[j] 3\nnode;main;[JIT]_[j] 1\n");
	struct pframe fr[] = {
		{ .name = "main", .mapping = "/bin/node", .build_id = "" },
		{ .name = "[JIT]", .mapping = "[jit]", .build_id = "", .addr = 0x7f00, .jit = true },
	};
	struct report_opts o;
	struct profile *p = profile__new();
	struct vprof *pv;
	char *rep;

	report__defaults(&o);
	cr_assert_eq(v->stacks[0].depth, 2);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[1]].name, "JS:*leaf a.js:1");
	cr_expect_eq(v->frames[v->stacks[0].frames[1]].kind, FK_JIT);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[1]].dso, "[jit]");
	rep = render_report(v, &o);
	cr_expect(strstr(rep, "[j] JS:*leaf a.js:1\n") && strstr(rep, "[j] [JIT]\n"), "%s", rep);
	free(rep);
	cr_assert_eq(profile__add(p, 0, "node", 42, 43, 0, 7, fr, 2), 0);
	pv = pprof_round_trip(p);
	cr_assert_eq(pv->stacks[0].depth, 2);
	cr_expect_str_eq(pv->frames[pv->stacks[0].frames[1]].name, "[JIT]");
	cr_expect_eq(pv->frames[pv->stacks[0].frames[1]].kind, FK_JIT);
	cr_expect_eq(pv->frames[pv->stacks[0].frames[0]].kind, FK_USER);
	vprof__free(pv);
	vprof__free(v);
	profile__free(p);
}

Test(views, folded_bad_line_is_einval)
{
	struct vprof *v = NULL;
	const char *bad[] = { "app;main\n", "app;main 12x\n", "app;main -3\n", "app;main 3 \n" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(vprof__parse("t", (const uint8_t *)bad[i], strlen(bad[i]), &v), -EINVAL,
			     "%s", bad[i]);
}

/* A folded line holds any bytes but a newline: a control byte that sorts
 * first does not make it a protobuf; a NUL is the text \x00. */
Test(views, folded_control_bytes_and_nul)
{
	static const char text[] = "\x01" "evil;m\x1b]2;X\x07;\xff\xed\xa0\x80 5\napp;a\0b 3\n";
	struct vprof *v = NULL;

	cr_assert_eq(vprof__parse("t", (const uint8_t *)text, sizeof(text) - 1, &v), 0);
	cr_expect_eq(v->total, 8);
	cr_assert_eq(v->nstacks, 2);
	cr_expect_str_eq(v->stacks[0].comm, "\x01" "evil");
	cr_assert_eq(v->stacks[0].depth, 3);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[0]].name, "m\x1b]2");
	cr_expect_str_eq(v->frames[v->stacks[0].frames[2]].name, "\xff\xed\xa0\x80");
	cr_expect_str_eq(v->frames[v->stacks[1].frames[0]].name, "a\\x00b");
	vprof__free(v);
}

/* A count past 2^64-1 is a bad line; counts that add up past it, an overflow. */
Test(views, folded_counts_that_do_not_fit)
{
	const char *range = "a;x 1\na;y 18446744073709551616\n";
	const char *wrap[] = { "a;x 9223372036854775808\nb;y 9223372036854775808\n",
			       "a;x 18446744073709551615\nb;y 1\n" };
	struct vprof *v = NULL;
	size_t i;

	cr_expect_eq(vprof__parse("t", (const uint8_t *)range, strlen(range), &v), -ERANGE);
	for (i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++)
		cr_expect_eq(vprof__parse("t", (const uint8_t *)wrap[i], strlen(wrap[i]), &v),
			     -EOVERFLOW, "%s", wrap[i]);
	v = parse("a;x 18446744073709551614\nb;y 1\n");
	cr_expect_eq(v->total, UINT64_MAX);
	vprof__free(v);
}

/* The sums of the table and the tree are checked too, should a profile
 * ever hold stacks whose total was not (here: set by hand). */
Test(views, table_and_tree_sums_checked)
{
	static const enum vfield by_symbol[] = { VF_SYMBOL };
	struct vprof *v = parse("a;x 1\nb;x 1\n");
	struct vfilter f = { 0 };
	struct vtable t;
	struct fgtree tree;
	uint64_t sum = UINT64_MAX - 1;

	v->stacks[0].count = v->stacks[1].count = 1ull << 63;
	cr_expect_eq(vtable__build(v, by_symbol, 1, &f, &t), -EOVERFLOW);
	cr_expect_eq(fgtree__build(v, NULL, &f, &tree), -EOVERFLOW);
	cr_expect_eq(vprof__add_count(&sum, 1), 0);
	cr_expect_eq(vprof__add_count(&sum, 1), -EOVERFLOW);
	cr_expect_eq(sum, UINT64_MAX);
	vprof__free(v);
}

/* A pprof of n samples of value each, packed. */
static uint8_t *pack_pprof(size_t n, int64_t value, size_t *len)
{
	Perftools__Profiles__ValueType st = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *sts[] = { &st };
	Perftools__Profiles__Sample s = PERFTOOLS__PROFILES__SAMPLE__INIT, *ss[4];
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	char *strings[] = { "", "samples", "count" };
	uint8_t *buf;
	size_t i;

	st.type = 1;
	st.unit = 2;
	s.n_value = 1;
	s.value = &value;
	for (i = 0; i < n; i++)
		ss[i] = &s;
	pr.n_sample_type = 1;
	pr.sample_type = sts;
	pr.n_sample = n;
	pr.sample = ss;
	pr.n_string_table = 3;
	pr.string_table = strings;
	*len = perftools__profiles__profile__get_packed_size(&pr);
	buf = malloc(*len);
	cr_assert(buf);
	perftools__profiles__profile__pack(&pr, buf);
	return buf;
}

Test(views, pprof_told_by_decoding_and_sums_checked)
{
	struct vprof *v = NULL;
	size_t len;
	uint8_t *buf = pack_pprof(2, INT64_MAX, &len);

	cr_assert_eq(vprof__parse("t", buf, len, &v), 0);
	cr_expect_eq(v->total, UINT64_MAX - 1);
	cr_expect_eq(v->nstacks, 2);
	vprof__free(v);
	free(buf);
	buf = pack_pprof(3, INT64_MAX, &len);
	cr_expect_eq(vprof__parse("t", buf, len, &v), -EOVERFLOW);
	free(buf);
}

/* A pprof of nloc locations (ids 1000 + 2i, listed last first, each of
 * lines lines of function id 1000 + 2i, named "f") and one sample whose
 * stack is location 1000 repeated depth times, then each location once. */
static uint8_t *pack_stack(size_t nloc, size_t lines, size_t depth, size_t *len)
{
	Perftools__Profiles__ValueType st = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *sts[] = { &st };
	Perftools__Profiles__Sample s = PERFTOOLS__PROFILES__SAMPLE__INIT, *ss[] = { &s };
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Location *locs = calloc(nloc, sizeof(*locs)), **lp = calloc(nloc, sizeof(*lp));
	Perftools__Profiles__Function *fns = calloc(nloc, sizeof(*fns)), **fp = calloc(nloc, sizeof(*fp));
	Perftools__Profiles__Line line = PERFTOOLS__PROFILES__LINE__INIT, **ln = calloc(nloc * lines, sizeof(*ln));
	Perftools__Profiles__Line *lines_of = calloc(nloc * lines, sizeof(*lines_of));
	uint64_t *ids = calloc(depth + nloc, sizeof(*ids));
	char *strings[] = { "", "samples", "count", "f" };
	int64_t value = 1;
	uint8_t *buf;
	size_t i, k;

	cr_assert(locs && lp && fns && fp && ln && lines_of && ids);
	st.type = 1;
	st.unit = 2;
	for (i = 0; i < nloc; i++) {
		size_t at = nloc - 1 - i;	/* last first */

		perftools__profiles__location__init(&locs[at]);
		perftools__profiles__function__init(&fns[at]);
		locs[at].id = fns[at].id = 1000 + 2 * i;
		fns[at].name = 3;
		for (k = 0; k < lines; k++) {
			lines_of[at * lines + k] = line;
			lines_of[at * lines + k].function_id = 1000 + 2 * i;
			ln[at * lines + k] = &lines_of[at * lines + k];
		}
		locs[at].n_line = lines;
		locs[at].line = ln + at * lines;
		lp[at] = &locs[at];
		fp[at] = &fns[at];
		ids[depth + i] = 1000 + 2 * i;
	}
	for (i = 0; i < depth; i++)
		ids[i] = 1000;
	s.n_value = 1;
	s.value = &value;
	s.n_location_id = depth + nloc;
	s.location_id = ids;
	pr.n_sample_type = 1;
	pr.sample_type = sts;
	pr.n_sample = 1;
	pr.sample = ss;
	pr.n_location = nloc;
	pr.location = lp;
	pr.n_function = nloc;
	pr.function = fp;
	pr.n_string_table = 4;
	pr.string_table = strings;
	*len = perftools__profiles__profile__get_packed_size(&pr);
	buf = malloc(*len);
	cr_assert(buf);
	perftools__profiles__profile__pack(&pr, buf);
	free(locs), free(lp), free(fns), free(fp), free(ln), free(lines_of), free(ids);
	return buf;
}

/* Locations found by id whatever their order; a sample of more than 4096
 * frames (inlined lines counted) refused, 4096 read. */
Test(views, pprof_ids_indexed_and_frames_capped)
{
	static const struct { size_t nloc, lines, depth; int err; uint32_t frames; } cases[] = {
		{ 3000, 1, 0, 0, 3000 },
		{ 1, 1, 4095, 0, 4096 },
		{ 1, 1, 4096, -E2BIG, 0 },
		{ 1, 2, 2047, 0, 4096 },	/* 2048 locations of 2 lines */
		{ 1, 2, 2048, -E2BIG, 0 },
		{ 1, 5000, 0, -E2BIG, 0 },	/* one location of 5000 lines */
	};
	struct vprof *v;
	uint8_t *buf;
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = NULL;
		buf = pack_stack(cases[i].nloc, cases[i].lines, cases[i].depth, &len);
		cr_expect_eq(vprof__parse("t", buf, len, &v), cases[i].err, "case %zu", i);
		if (!cases[i].err) {
			cr_expect_eq(v->nstacks, 1, "case %zu", i);
			cr_expect_eq(v->stacks[0].depth, cases[i].frames, "case %zu", i);
		}
		vprof__free(v);
		free(buf);
	}
}

/* The page's names: what term_safe.h refuses as \u%04x (the page shows
 * the same character), invalid UTF-8 as the text \xHH, '<' '>' '&' and
 * JSON's own escapes; other UTF-8 as itself. */
Test(views, page_json_names)
{
	static const char *const want[] = {
		"\"a\\u009bb\"", "\"c\\u202ed\\u2066\"", "\"e\\\\xfff\\\\xed\\\\xa0\\\\x80\"",
		"\"g\\u003c\\u0026\\u003e\\\"\\\\h\"", "\"i\\u001bj\\u007f\"", "\"m\xc3\xbcller \xe6\x97\xa5\"",
		"\"title\":\"t\\u0085\\\\xc0\"",
	};
	struct vprof *v = parse("app;a\xc2\x9b" "b;c\xe2\x80\xae" "d\xe2\x81\xa6;e\xff" "f\xed\xa0\x80;"
				"g<&>\"\\h;i\x1bj\x7f;m\xc3\xbcller \xe6\x97\xa5 1\n");
	struct fg_opts o = { .title = "t\xc2\x85\xc0" };
	char *page = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&page, &len);

	cr_assert(f);
	cr_assert_eq(flamegraph__write(v, NULL, &o, f), 0);
	fclose(f);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(strstr(page, want[i]), "missing %s", want[i]);
	cr_expect(!memmem(page, len, "\xc2\x9b", 2) && !memmem(page, len, "\xe2\x80\xae", 3) &&
		  !memchr(page, 0x1b, len) && !memchr(page, 0xff, len));
	free(page);
	vprof__free(v);
}

static char *xml(const char *s, size_t max_cols, size_t *took)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	*took = svg__xml_text(s, max_cols, f);
	fclose(f);
	return buf;
}

/* Every SVG text: XML's specials as entities, what XML 1.0 cannot hold or
 * is not UTF-8 as \xHH, other UTF-8 kept; cut by columns, whole characters. */
Test(views, svg_xml_text)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "<script>&\"'", "&lt;script&gt;&amp;&quot;&apos;" },
		{ "]]>", "]]&gt;" },
		{ "jit\xffname", "jit\\xffname" },
		{ "py\xed\xa0\x80", "py\\xed\\xa0\\x80" },	/* a lone surrogate */
		{ "\x01\x1b[2J\t\x7f", "\\x01\\x1b[2J\\x09\\x7f" },
		{ "\xc2\x85", "\\xc2\\x85" },			/* C1: NEL */
		{ "\xef\xbf\xbe", "\\xef\\xbf\\xbe" },	/* U+FFFE */
		{ "\xc0\xbc", "\\xc0\\xbc" },			/* an overlong '<' */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },	/* past U+10FFFF */
		{ "\xe2\x82", "\\xe2\\x82" },			/* cut */
		{ "m\xc3\xbcller \xe6\x97\xa5 \xf0\x9f\x94\xa5", "m\xc3\xbcller \xe6\x97\xa5 \xf0\x9f\x94\xa5" },
	};
	size_t i, took;
	char *out;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = xml(cases[i].in, SIZE_MAX, &took);
		cr_expect_str_eq(out, cases[i].out, "case %zu", i);
		cr_expect_eq(took, strlen(cases[i].in));
		free(out);
	}
	out = xml("\xc3\xbc\xc3\xbc\xc3\xbc", 2, &took);
	cr_expect_str_eq(out, "\xc3\xbc\xc3\xbc");
	cr_expect_eq(took, 4);
	free(out);
	out = xml("a\xff" "b", 4, &took);	/* the escape takes 4 columns: not cut in two */
	cr_expect_str_eq(out, "a");
	cr_expect_eq(took, 1);
	free(out);
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
	struct vprof *v;

	cr_assert_eq(profile__add(p, 0, "app", 42, 43, 0, 7, fr, 3), 0);
	cr_assert_eq(profile__add(p, 0, "app", 42, 43, 0, 5, fr, 2), 0);
	v = pprof_round_trip(p);
	cr_expect_eq(v->total, 12);
	cr_assert_eq(v->nstacks, 2);
	cr_expect_str_eq(v->stacks[0].comm, "app");
	cr_expect_eq(v->stacks[0].pid, 42);
	cr_assert_eq(v->stacks[0].depth, 3);
	cr_expect_str_eq(v->frames[v->stacks[0].frames[0]].name, "main");
	cr_expect_str_eq(v->frames[v->stacks[0].frames[0]].dso, "/bin/app");
	cr_expect_eq(v->frames[v->stacks[0].frames[2]].kind, FK_KERNEL);
	vprof__free(v);
	profile__free(p);
}

/* A Python function's samples at two lines: two Locations (a Python frame
 * has no address: its line tells them apart), read back at their lines
 * with their own counts. Found in a run: every sample of hot() at the
 * line its first sample had, whichever that was. */
Test(views, pprof_python_lines_apart)
{
	struct pframe fr[] = {
		{ .name = "main", .mapping = "/bin/python3", .build_id = "" },
		{ .name = "hot (py_chain.py:13)", .mapping = "[python]", .build_id = "",
		  .file = "/src/py_chain.py", .line = 13, .start_line = 10, .runtime = FK_PYTHON },
		{ .name = "hot (py_chain.py:14)", .mapping = "[python]", .build_id = "",
		  .file = "/src/py_chain.py", .line = 14, .start_line = 10, .runtime = FK_PYTHON },
	};
	const struct pframe at13[] = { fr[0], fr[1] }, at14[] = { fr[0], fr[2] };
	struct profile *p = profile__new();
	struct vprof *v;

	cr_assert_eq(profile__add(p, 0, "python3", 42, 42, 0, 3, at13, 2), 0);
	cr_assert_eq(profile__add(p, 0, "python3", 42, 42, 0, 5, at14, 2), 0);
	v = pprof_round_trip(p);
	cr_assert_eq(v->nstacks, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct vstack *s = &v->stacks[i];
		const char *leaf = v->frames[s->frames[s->depth - 1]].name;

		cr_expect_str_eq(leaf, s->count == 3 ? "hot (py_chain.py:13)" : "hot (py_chain.py:14)",
				 "%lu samples at %s", (unsigned long)s->count, leaf);
	}
	vprof__free(v);
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
