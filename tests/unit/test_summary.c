// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of summary.c and summary_json.c: the short line's bound, the
 * stacks count (the folded lines), JSON strings, advice. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "output/folded.h"
#include "base/runtime.h"
#include "output/summary.h"
#include "output/summary_tables.h"
#include "profile/aggregate.h"

TestSuite(summary, .fini = check_leaks);

/* Two threads of one stack (one folded line), one other stack. */
static struct profile *two_lines(void)
{
	struct pframe a[] = { { .name = "main" }, { .name = "hot" } };
	struct pframe b[] = { { .name = "main" }, { .name = "cold" } };
	struct profile *p = profile__new();

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 5, a, 2), 0);
	cr_assert_eq(profile__add(p, 0, "app", 10, 12, 0, 3, a, 2), 0);
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 1, b, 2), 0);
	p->stats.bpf[STAT_SAMPLES] = 9;
	p->stats.duration = 2.0;
	return p;
}

Test(summary, stacks_are_the_folded_lines)
{
	struct profile *p = two_lines();
	struct summary s;
	char line[1024];

	summary__init(&s, p, "command exited", "out.folded");
	cr_expect_eq(p->nsamples, 3);
	cr_expect_eq(s.stacks, 2);
	cr_expect_eq(folded__distinct(p), 2);
	summary__short(&s, line, sizeof(line));
	cr_expect_str_eq(line, "9 samples, 0 lost, 0.0% frames unresolved, 2.00 s (command exited), "
			 "2 stacks to out.folded");
	profile__free(p);
}

/* Complete stacks are those that reached an entry (symbols/resolve.c),
 * of the samples with a user stack: not the walks that ended with no
 * caller, which a zero frame pointer in JIT code gives too. */
Test(summary, complete_stacks_are_those_that_reached_an_entry)
{
	struct profile *p = two_lines();
	struct summary s;
	char line[1024];

	p->stats.bpf[STAT_UNWIND_END] = 9;	/* every walk ended with no caller */
	p->stats.user_stacks = 9;
	p->stats.user_stacks_complete = 2;	/* 2 of them at _start */
	summary__init(&s, p, "command exited", "out.folded");
	summary__short(&s, line, sizeof(line));
	cr_expect_str_eq(line, "9 samples, 0 lost, 22.2% complete stacks, 0.0% frames unresolved, "
			 "2.00 s (command exited), 2 stacks to out.folded");
	profile__free(p);
}

/* A runtime's frames it could not name are said with its row's words. */
Test(summary, a_runtime_unnamed_reason_is_its_rows)
{
	struct summary_reason buf;
	const struct summary_reason *r;

	cr_expect_null(summary__unnamed_reason(UNNAMED_NONE, &buf));
	cr_expect_null(summary__unnamed_reason(UNNAMED_MAX, &buf));
	r = summary__unnamed_reason(UNNAMED_NO_SYMBOL, &buf);
	cr_assert_not_null(r);
	cr_expect_str_eq(r->key, "no_symbol");
	for (int id = 0; id < RUNTIME_MAX; id++) {
		r = summary__unnamed_reason(UNNAMED_RUNTIME + id, &buf);
		if (!runtime_rows[id]->unnamed_key) {
			cr_expect_null(r);
			continue;
		}
		cr_assert_not_null(r);
		cr_expect_str_eq(r->key, runtime_rows[id]->unnamed_key);
		cr_expect_str_eq(r->text, runtime_rows[id]->unnamed_text);
	}
}

Test(summary, a_long_destination_is_cut_to_the_bound)
{
	struct profile *p = two_lines();
	struct summary s;
	char line[2048], dest[1200];

	memset(dest, 'd', sizeof(dest) - 1);
	dest[sizeof(dest) - 1] = '\0';
	p->stats.bpf[STAT_SAMPLES] = 18446744073709551615ull;	/* the widest count */
	summary__init(&s, p, "duration reached", dest);
	summary__short(&s, line, sizeof(line));
	cr_expect_leq(strlen("bpfprof: ") + strlen(line), SUMMARY_COLUMNS, "%zu: %s",
		      strlen(line), line);
	cr_expect(strstr(line, "dd...") != NULL, "%s", line);
	profile__free(p);
}

static char *json_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	summary__json_string(s, f);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

Test(summary, json_strings_stay_json)
{
	char *out = json_of("a\"b\\c\nd\x01 m\xc3\xbcller \xff");

	cr_expect_str_eq(out, "\"a\\\"b\\\\c\\u000ad\\u0001 m\xc3\xbcller \\u00ff\"");
	free(out);
}

static void count_line(const char *text, void *arg)
{
	(void)text;
	(*(int *)arg)++;
}

static void keep_line(const char *text, void *arg)
{
	snprintf(arg, 256, "%s", text);
}

Test(summary, advice_only_when_something_is_high)
{
	struct profile *p = two_lines();
	struct summary s;
	char said[256] = "";
	int n = 0;

	summary__init(&s, p, "duration reached", NULL);
	summary__advice(&s, count_line, &n);
	cr_expect_eq(n, 0);
	p->stats.tables.set = true;
	p->stats.tables.files_refused = 16;
	summary__advice(&s, keep_line, said);
	cr_expect_str_eq(said, "16 files' unwind tables did not fit: raise --unwind-rows");
	profile__free(p);
}

/* Every advice line said, one after the other, into arg (a 1024-byte buffer). */
static void all_lines(const char *text, void *arg)
{
	size_t len = strlen(arg);

	snprintf((char *)arg + len, 1024 - len, "%s|", text);
}

/* issue 36: an insert that failed in a map with room (-ENOMEM, -EBUSY) is
 * no reason to raise --max-stacks; only -E2BIG (full) is. */
Test(summary, only_full_maps_advise_max_stacks)
{
	struct profile *p = two_lines();
	struct summary s;
	char said[1024] = "";

	p->stats.bpf[STAT_SAMPLES] = 1000;
	p->stats.bpf[STAT_LOST_STACKMAP_TRANSIENT] = 1;
	summary__init(&s, p, "duration reached", NULL);
	summary__advice(&s, all_lines, said);
	cr_expect_str_eq(said, "", "one transient loss in 1000: nothing to advise: %s", said);
	p->stats.bpf[STAT_LOST_COUNTS_TRANSIENT] = 20;
	summary__advice(&s, all_lines, said);
	cr_expect_str_eq(said, "21 samples lost to transient map errors (kernel memory or a busy "
			 "lock, the maps not full)|");
	said[0] = '\0';
	p->stats.bpf[STAT_LOST_STACKMAP_FULL] = 2;
	p->stats.bpf[STAT_LOST_COUNTS_FULL] = 3;
	summary__advice(&s, all_lines, said);
	cr_expect(strstr(said, "5 samples lost to full maps: raise --max-stacks|") == said, "%s",
		  said);
	cr_expect_eq(profile__lost(p), 26);
	profile__free(p);
}

/* summary__json_members() of s: a string to free(). */
static char *members_of(const struct summary *s)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);

	cr_assert_not_null(f);
	cr_assert_eq(summary__json_members(s, f), 0);
	cr_assert_eq(fclose(f), 0);
	return json;
}

/* The -v line and the JSON name each reason, full apart from transient. */
Test(summary, lost_reasons_each_their_own_count)
{
	struct profile *p = two_lines();
	struct summary s;
	char said[1024] = "", *json;

	p->stats.bpf[STAT_LOST_STACKMAP_FULL] = 1;
	p->stats.bpf[STAT_LOST_STACKMAP_TRANSIENT] = 2;
	p->stats.bpf[STAT_LOST_STACK_ERROR] = 3;
	p->stats.bpf[STAT_LOST_COUNTS_FULL] = 4;
	p->stats.bpf[STAT_LOST_COUNTS_TRANSIENT] = 5;
	summary__init(&s, p, "duration reached", NULL);
	summary__details(&s, all_lines, said);
	cr_expect(strstr(said, "lost: 15 samples (stack map full 1, stack map busy or out of kernel "
			 "memory 2, stack error 3, counts map full 4, counts map busy or out of "
			 "kernel memory 5), 0 process tracking records|") != NULL, "%s", said);
	json = members_of(&s);
	cr_expect(strstr(json, "\"lost_by_reason\":{\"stack_map_full\":1,\"stack_map_transient\":2,"
			 "\"stack_error\":3,\"counts_map_full\":4,\"counts_map_transient\":5}")
		  != NULL, "%s", json);
	free(json);
	profile__free(p);
}

/* issue 36: the process that flooded the tracking records is named, its
 * comm escaped (whoever runs a process names it), in the text and JSON. */
Test(summary, the_tracking_flooder_is_named_escaped)
{
	struct profile *p = two_lines();
	struct summary s;
	char said[1024] = "", *json;

	p->stats.tracking_lost = 7;
	p->stats.tracking_over_budget = 9000;
	p->stats.flooder = (struct flooder){ .pid = 4242, .per_sec = 12000 };
	snprintf(p->stats.flooder.comm, sizeof(p->stats.flooder.comm), "fl\x1b[31mood");
	summary__init(&s, p, "duration reached", NULL);
	summary__advice(&s, all_lines, said);
	cr_expect_str_eq(said, "7 process tracking records lost (the kernel's buffers were full); "
			 "busiest: process 4242 (fl\\x1b[31mood), 12000 records in a second: "
			 "short-lived processes may be unnamed|");
	said[0] = '\0';
	summary__details(&s, all_lines, said);
	cr_expect(strstr(said, "|tracking: 7 records lost, 9000 past a process's budget (256 a "
			 "second: not applied, the process read from /proc instead); busiest: "
			 "process 4242 (fl\\x1b[31mood), 12000 records in a second|") != NULL, "%s",
		  said);
	p->stats.tracking_lost = 0;	/* held back only: nothing to warn of */
	said[0] = '\0';
	summary__advice(&s, all_lines, said);
	cr_expect_str_eq(said, "");
	json = members_of(&s);
	cr_expect(strstr(json, "\"tracking_records_over_budget\":9000,\"tracking_busiest\":{\"pid\":"
			 "4242,\"comm\":\"fl\\u001b[31mood\",\"records_in_a_second\":12000}") != NULL,
		  "%s", json);
	free(json);
	profile__free(p);
}

/* Mappings forgotten past a process's cap: said, the process named with
 * its comm escaped; nothing said when none were. */
Test(summary, forgotten_mappings_name_the_process_escaped)
{
	struct profile *p = two_lines();
	struct summary s;
	char said[1024] = "", *json;

	p->stats.vmas_forgotten = 12;
	p->stats.vmas_forgot_pid = 4343;
	snprintf(p->stats.vmas_forgot_comm, sizeof(p->stats.vmas_forgot_comm), "pl\x1b[2Jug");
	summary__init(&s, p, "duration reached", NULL);
	summary__advice(&s, all_lines, said);
	cr_expect_str_eq(said, "12 mappings forgotten past a process's cap of 4096 (most: process "
			 "4343 (pl\\x1b[2Jug)): samples in them before they went may be unnamed|");
	json = members_of(&s);
	cr_expect(strstr(json, "\"forgotten_past_cap\":12,\"forgotten_most_by\":4343") != NULL,
		  "%s", json);
	free(json);
	p->stats.vmas_forgotten = 0;
	said[0] = '\0';
	summary__advice(&s, all_lines, said);
	cr_expect_str_eq(said, "");
	profile__free(p);
}

/* Many samples, most lines shared by several threads: the count is the
 * lines folded__write() writes (the e2e checks it against the file too). */
Test(summary, distinct_lines_as_written)
{
	static const char *const names[] = { "main", "a", "b", "c", "d", "e", "f" };
	struct profile *p = profile__new();
	char *text = NULL;
	size_t len = 0, lines = 0;
	FILE *f;

	cr_assert_not_null(p);
	for (int i = 0; i < 3000; i++) {
		struct pframe fr[3] = { { .name = "main" }, { .name = names[i % 7] },
					{ .name = names[(i / 7) % 7] } };

		cr_assert_eq(profile__add(p, 0, "app", 10, 11 + i % 13, 0, 1, fr, 3), 0);
	}
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(folded__write(p, f), 0);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	cr_expect_eq(lines, 49, "7 x 7 stacks: %zu", lines);
	cr_expect_eq(folded__distinct(p), lines);
	free(text);
	profile__free(p);
}

/* An off-CPU run takes no sample: its line says the time blocked. */
Test(summary, an_off_cpu_run_says_the_time_blocked)
{
	struct pframe a[] = { { .name = "main" }, { .name = "nanosleep" } };
	struct profile *p = profile__new();
	struct summary s;
	char line[1024];

	cr_assert_not_null(p);
	p->nevents = 1;
	p->events[0] = (struct pevent){ .name = "offcpu", .unit = "microseconds",
					.kind = PEVENT_OFFCPU };
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 1500000, a, 2), 0);
	p->stats.bpf[STAT_OFFCPU_BLOCKS] = 3;
	p->stats.duration = 2.0;
	summary__init(&s, p, "command exited", NULL);
	summary__short(&s, line, sizeof(line));
	cr_expect_str_eq(line, "1.50 s off-CPU in 3 blocks, 0 lost, 0.0% frames unresolved, "
			 "2.00 s (command exited), 1 stack");
	profile__free(p);
}
