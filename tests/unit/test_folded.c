// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of aggregate.c + folded.c: the folded-stacks format. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "profile/aggregate.h"
#include "output/folded.h"

TestSuite(folded, .fini = check_leaks);

static char *write_folded(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(folded__write(p, f), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

Test(folded, root_first_kernel_suffixed)
{
	struct pframe frames[] = {
		{ .name = "main" }, { .name = "work" },
		{ .name = "entry_SYSCALL_64", .kernel = true }, { .name = "vfs_read", .kernel = true },
	};
	struct profile *p = profile__new();
	char *out;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 7, frames, 4), 0);
	out = write_folded(p);
	cr_expect_str_eq(out, "app;main;work;entry_SYSCALL_64_[k];vfs_read_[k] 7\n");
	free(out);
	profile__free(p);
}

/* JIT frames (issue 25): a map's name and the unnamed "[JIT]" both marked
 * _[j]; two addresses of unnamed JIT code are one frame of the line. */
Test(folded, jit_frames_marked)
{
	struct pframe a[] = { { .name = "main" }, { .name = "JS:*leaf a.js:1", .jit = true, .addr = 1 } };
	struct pframe b[] = { { .name = "main" }, { .name = "[JIT]", .jit = true, .addr = 2 } };
	struct pframe c[] = { { .name = "main" }, { .name = "[JIT]", .jit = true, .addr = 3 } };
	struct profile *p = profile__new();
	char *out;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "node", 1, 1, 0, 2, a, 2), 0);
	cr_assert_eq(profile__add(p, 0, "node", 1, 1, 0, 3, b, 2), 0);
	cr_assert_eq(profile__add(p, 0, "node", 1, 1, 0, 4, c, 2), 0);
	out = write_folded(p);
	cr_expect_str_eq(out, "node;main;JS:*leaf a.js:1_[j] 2\nnode;main;[JIT]_[j] 7\n");
	free(out);
	profile__free(p);
}

Test(folded, same_line_from_different_threads_merges_and_sorts)
{
	struct pframe a[] = { { .name = "main" }, { .name = "a" } };
	struct pframe b[] = { { .name = "main" }, { .name = "b" } };
	struct profile *p = profile__new();
	char *out;

	cr_assert_eq(profile__add(p, 0, "app", 10, 12, 0, 5, b, 2), 0);
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 3, a, 2), 0);
	cr_assert_eq(profile__add(p, 0, "app", 10, 13, 0, 4, a, 2), 0);
	cr_expect_eq(profile__total(p), 12);
	out = write_folded(p);
	cr_expect_str_eq(out, "app;main;a 7\napp;main;b 5\n");
	free(out);
	profile__free(p);
}

Test(folded, separators_inside_names_are_replaced)
{
	struct pframe f[] = { { .name = "ns;fn" }, { .name = "op\nnew" }, { .name = "std::vector<int> x" },
			      { .name = "/tmp/a\r\n;b (deleted)+0x10" } };
	struct profile *p = profile__new();
	char *out;

	cr_assert_eq(profile__add(p, 0, "we;ird", 1, 1, 0, 2, f, 4), 0);
	out = write_folded(p);
	cr_expect_str_eq(out, "we:ird;ns:fn;op\\nnew;std::vector<int> x;/tmp/a\\r\\n:b (deleted)+0x10 2\n");
	free(out);
	profile__free(p);
}

/* The one rule (folded.c put_name, term_safe.h): ';' is ':', newline \n,
 * CR \r, every other control byte (C0, DEL, C1) and every byte of invalid
 * UTF-8 \xHH; printable UTF-8 and backslashes stay. Every line is then
 * valid UTF-8 without control bytes: a terminal shows it as it is. */
Test(folded, control_and_invalid_utf8_bytes_escaped_printable_utf8_kept)
{
	struct pframe f[] = { { .name = "\033]2;X\007" }, { .name = "m\xc3\xbcller_\xe6\x97\xa5" },
			      { .name = "tab\there\x7f" }, { .name = "c1\xc2\x9b" "2J bad\xff\xe6\x97" },
			      { .name = "a\\x01b" } };
	struct profile *p = profile__new();
	char *out;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "\001evil\033[2J", 1, 1, 0, 3, f, 5), 0);
	out = write_folded(p);
	cr_expect_str_eq(out, "\\x01evil\\x1b[2J;\\x1b]2:X\\x07;m\xc3\xbcller_\xe6\x97\xa5;"
			 "tab\\x09here\\x7f;c1\\xc2\\x9b2J bad\\xff\\xe6\\x97;a\\x01b 3\n");
	free(out);
	profile__free(p);
}

Test(folded, full_length_comm_and_no_frames)
{
	struct profile *p = profile__new();
	char *out;

	/* a 15-character comm is the longest the kernel keeps */
	cr_assert_eq(profile__add(p, 0, "abcdefghijklmno", 1, 1, 0, 9, NULL, 0), 0);
	cr_assert_eq(profile__add(p, 0, "", 2, 2, 0, 1, NULL, 0), 0);
	out = write_folded(p);
	cr_expect_str_eq(out, "[unknown] 1\nabcdefghijklmno 9\n");
	free(out);
	profile__free(p);
}

Test(folded, names_are_interned)
{
	struct pframe f[] = { { .name = "main" } };
	char name[] = "main";
	struct pframe g[] = { { .name = name } };
	struct profile *p = profile__new();

	cr_assert_eq(profile__add(p, 0, "a", 1, 1, 0, 1, f, 1), 0);
	cr_assert_eq(profile__add(p, 0, "b", 2, 2, 0, 1, g, 1), 0);
	name[0] = 'X';	/* the profile holds its own copy */
	cr_expect_eq(p->samples[0].frames[0]->name, p->samples[1].frames[0]->name);
	cr_expect_str_eq(p->samples[1].frames[0]->name, "main");
	profile__free(p);
}

Test(folded, write_error_is_reported)
{
	struct pframe f[] = { { .name = "main" } };
	struct profile *p = profile__new();
	FILE *full = fopen("/dev/full", "w");

	cr_assert_not_null(full);
	cr_assert_eq(profile__add(p, 0, "a", 1, 1, 0, 1, f, 1), 0);
	cr_expect_lt(folded__write(p, full), 0);
	fclose(full);
	profile__free(p);
}

Test(folded, lost_sums_every_loss_reason)
{
	struct profile *p = profile__new();
	int k;

	for (k = 0; k < STAT_MAX; k++)
		p->stats.bpf[k] = 1u << k;
	/* the STAT_LOST_* reasons: bits STAT_LOST_FIRST (1)..STAT_LOST_LAST,
	 * full and transient alike (off-CPU's counters are not samples lost) */
	cr_expect_eq(STAT_LOST_FIRST, 1);
	cr_expect_eq(profile__lost(p), (1u << (STAT_LOST_LAST + 1)) - 2);
	profile__free(p);
}

Test(folded, several_events_get_their_name_as_root_and_scale)
{
	struct pframe f[] = { { .name = "main" } };
	struct profile *p = profile__new();
	char *out;

	p->nevents = 2;
	snprintf(p->events[0].name, sizeof(p->events[0].name), "oncpu");
	p->events[0].scale = 10101;	/* us per sample at 99 Hz */
	snprintf(p->events[1].name, sizeof(p->events[1].name), "offcpu");
	cr_assert_eq(profile__add(p, 0, "app", 1, 1, 0, 3, f, 1), 0);
	cr_assert_eq(profile__add(p, 1, "app", 1, 1, 0, 500, f, 1), 0);
	out = write_folded(p);
	cr_expect_str_eq(out, "offcpu;app;main 500\noncpu;app;main 30303\n");
	cr_expect_eq(profile__total(p), 503);	/* as the BPF side counted */
	cr_expect_eq(profile__event_total(p, 0), 30303);
	free(out);
	profile__free(p);
}

/* The run's footprint is a reading, not a count: a merge (a snapshot
 * followed by the interval's end) keeps the newer one, never a sum. */
Test(folded, merge_keeps_the_newer_footprint)
{
	struct profile *dst = profile__new(), *src = profile__new();

	cr_assert(dst && src);
	dst->stats.footprint = (struct footprint){ .set = true, .unwind_rows = 500,
						   .kernel_bytes = 4096 };
	cr_assert_eq(profile__merge(dst, src), 0);
	cr_expect_eq(dst->stats.footprint.unwind_rows, 500, "an unset footprint changes nothing");
	src->stats.footprint = (struct footprint){ .set = true, .unwind_rows = 300,
						   .kernel_bytes = 2048 };
	cr_assert_eq(profile__merge(dst, src), 0);
	cr_expect_eq(dst->stats.footprint.unwind_rows, 300);
	cr_expect_eq(dst->stats.footprint.kernel_bytes, 2048);
	profile__free(src);
	profile__free(dst);
}

/* Lines come out in strcmp order and merged, whatever the frames: names
 * that are prefixes of others ("f" and "f-x", "f;x" prints "f:x"), names
 * that print the same ("g;1" and "g:1"), marks, comms, events, stacks one
 * frame longer than others. The order is the one `LC_ALL=C sort` gives. */
Test(folded, lines_sorted_bytewise_and_merged)
{
	static const char *names[] = { "f", "f-x", "f;x", "f:x", "fz", "g;1", "g:1", "a\nb", "" };
	const size_t nn = sizeof(names) / sizeof(names[0]);
	struct profile *p = profile__new();
	struct pframe fr[6];
	uint64_t total = 0, sum = 0;
	char *out, *line, *save, **lines;
	size_t n = 0;

	cr_assert_not_null(p);
	p->nevents = 2;
	snprintf(p->events[0].name, sizeof(p->events[0].name), "cpu-clock");
	snprintf(p->events[1].name, sizeof(p->events[1].name), "cpu");
	srand(7);
	for (int i = 0; i < 3000; i++) {
		uint32_t depth = 1 + rand() % 6;

		for (uint32_t k = 0; k < depth; k++)
			fr[k] = (struct pframe){ .name = names[rand() % nn], .kernel = rand() % 5 == 0,
						 .inlined = rand() % 7 == 0 };
		cr_assert_eq(profile__add(p, rand() % 2, rand() % 2 ? "app" : "app2", 1, 1, 0, 1 + i % 3,
					  fr, depth), 0);
		total += 1 + i % 3;
	}
	out = write_folded(p);
	lines = calloc(p->nsamples, sizeof(*lines));
	cr_assert_not_null(lines);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		cr_assert_not_null(sp);
		sum += strtoull(sp + 1, NULL, 10);
		*sp = '\0';
		if (n)	/* sorted, and each line once */
			cr_assert_lt(strcmp(lines[n - 1], line), 0, "'%s' then '%s'", lines[n - 1], line);
		lines[n++] = line;
	}
	cr_expect_eq(sum, total);
	cr_expect_gt(n, 100);
	free(lines);
	free(out);
	profile__free(p);
}

static int name_by_table(struct pcgroup *cg, void *arg)
{
	cg->path = ((const char *const *)arg)[cg->id];	/* the test's strings outlive p */
	return 0;
}

/* --group-by: the label's value is each line's root, "KEY:none" where the
 * sample has none; lines of one group sort together. */
Test(folded, group_by_label_roots_each_line)
{
	static const char *const paths[] = {
		NULL, "/system.slice/docker-"
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
		"/system.slice/nginx.service", "",
	};
	struct pframe f = { .name = "work" };
	struct profile *p = profile__new();
	char *out;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "app", 10, 10, 1, 2, &f, 1), 0);
	cr_assert_eq(profile__add(p, 0, "web", 20, 20, 2, 3, &f, 1), 0);
	cr_assert_eq(profile__add(p, 0, "gone", 30, 30, 3, 4, &f, 1), 0);
	cr_assert_eq(profile__add(p, 0, "host", 40, 40, 0, 5, &f, 1), 0);
	cr_assert_eq(profile__each_cgroup(p, name_by_table, (void *)paths), 0);
	p->group_by = GROUP_CONTAINER;
	out = write_folded(p);
	cr_expect_str_eq(out,
		"container:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef;app;work 2\n"
		"container:none;gone;work 4\n"
		"container:none;host;work 5\n"
		"container:none;web;work 3\n");
	free(out);
	p->group_by = GROUP_UNIT;
	out = write_folded(p);
	cr_expect_str_eq(out, "unit:nginx.service;web;work 3\n"
			      "unit:none;app;work 2\nunit:none;gone;work 4\nunit:none;host;work 5\n");
	free(out);
	p->group_by = GROUP_CGROUP;
	out = write_folded(p);
	cr_expect(strstr(out, "cgroup:unknown;gone;work 4\n"), "%s", out);
	cr_expect(strstr(out, "cgroup:unknown;host;work 5\n"), "%s", out);
	cr_expect(strstr(out, "cgroup:/system.slice/nginx.service;web;work 3\n"), "%s", out);
	free(out);
	p->group_by = GROUP_PID;
	out = write_folded(p);
	cr_expect(strstr(out, "pid:20;web;work 3\n"), "%s", out);
	free(out);
	profile__free(p);
}
