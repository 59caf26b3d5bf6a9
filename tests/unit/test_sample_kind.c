// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of sample_kind.c (what each event's values are called and
 * worth), pprof.c's per-event write and push_series.c's request, read
 * back with protobuf-c. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "leak_check.h"
#include "output/pprof.h"
#include "output/push_series.h"
#include "output/sample_kind.h"
#include "profile/aggregate.h"
#include "profile.pb-c.h"

TestSuite(sample_kind, .fini = check_leaks);

typedef Perftools__Profiles__Profile Profile;

Test(sample_kind, cpu_is_samples_and_nanoseconds_of_its_period)
{
	struct pevent ev = { .name = "cpu-clock", .kind = PEVENT_CPU, .period = 10101010 };
	struct psample s = { .raw = 3, .count = 3 };
	struct sample_kind k;

	sample_kind__of(&ev, &k);
	cr_expect_str_eq(k.profile, "process_cpu");
	cr_assert_eq(k.nvalues, 2);
	cr_expect_str_eq(k.type[0], "samples");
	cr_expect_str_eq(k.type[1], "cpu");
	cr_expect_str_eq(k.unit[1], "nanoseconds");
	cr_expect_str_eq(k.period_type, "cpu");
	cr_expect_eq(k.period, 10101010);
	cr_expect_eq(sample_kind__value(&k, &ev, &s, 0), 3);
	cr_expect_eq(sample_kind__value(&k, &ev, &s, 1), 30303030);
}

Test(sample_kind, off_cpu_microseconds_are_nanoseconds)
{
	struct pevent ev = { .name = "offcpu", .unit = "microseconds", .kind = PEVENT_OFFCPU };
	struct psample s = { .raw = 2000352, .count = 2000352 };
	struct sample_kind k;

	sample_kind__of(&ev, &k);
	cr_expect_str_eq(k.profile, "off_cpu");
	cr_assert_eq(k.nvalues, 1);
	cr_expect_str_eq(k.type[0], "off_cpu");
	cr_expect_str_eq(k.unit[0], "nanoseconds");
	cr_expect_eq(sample_kind__value(&k, &ev, &s, 0), 2000352000);
}

Test(sample_kind, other_events_are_counts_named_in_pyroscopes_alphabet)
{
	struct pevent tp = { .name = "sched:sched_switch", .kind = PEVENT_COUNT, .period = 1 };
	struct pevent pf = { .name = "page-faults", .kind = PEVENT_COUNT, .period = 100 };
	struct pevent fq = { .name = "minor-faults", .kind = PEVENT_COUNT, .period = 0 };
	struct psample s = { .raw = 7, .count = 7 };
	struct sample_kind k;

	sample_kind__of(&tp, &k);
	cr_expect_str_eq(k.profile, "sched_sched_switch");
	cr_expect_str_eq(k.type[0], "sched_sched_switch");
	cr_expect_str_eq(k.unit[0], "count");
	cr_expect_eq(sample_kind__value(&k, &tp, &s, 0), 7);
	sample_kind__of(&pf, &k);
	cr_expect_str_eq(k.type[0], "page_faults");
	cr_expect_eq(sample_kind__value(&k, &pf, &s, 0), 700, "-c 100: 7 samples are 700 faults");
	sample_kind__of(&fq, &k);
	cr_expect_eq(k.period, 0);
	cr_expect_eq(sample_kind__value(&k, &fq, &s, 0), 7, "-F: the period is not known");
}

/* A CPU event (index 0) and off-CPU time (index 1), a stack each. */
static struct profile *two_events(void)
{
	struct pframe f[] = { { .name = "main" }, { .name = "work" } };
	struct profile *p = profile__new();

	cr_assert_not_null(p);
	p->nevents = 2;
	p->events[0] = (struct pevent){ .name = "cpu-clock", .unit = "count", .kind = PEVENT_CPU,
					.period = 1000000 };
	p->events[1] = (struct pevent){ .name = "offcpu", .unit = "microseconds",
					.kind = PEVENT_OFFCPU };
	p->stats.freq = 1000;
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 4, f, 2), 0);
	cr_assert_eq(profile__add(p, 1, "app", 10, 11, 0, 250, f, 1), 0);
	return p;
}

/* gzip'd pprof in buf -> a Profile (free with ..._free_unpacked). */
static Profile *unpack(const void *buf, size_t len)
{
	static unsigned char raw[1 << 20];
	uLongf n = sizeof(raw);
	z_stream z = { .next_in = (Bytef *)buf, .avail_in = (uInt)len, .next_out = raw,
		       .avail_out = (uInt)n };

	cr_assert_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	n = z.total_out;
	inflateEnd(&z);
	return perftools__profiles__profile__unpack(NULL, n, raw);
}

static Profile *write_event(const struct profile *p, int ev)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	Profile *pr;

	cr_assert_not_null(f);
	cr_assert_eq(pprof__write_event(p, ev, NULL, f), 0);
	fclose(f);
	pr = unpack(buf, len);
	free(buf);
	cr_assert_not_null(pr);
	return pr;
}

static int64_t total(const Profile *pr, size_t col)
{
	int64_t t = 0;

	for (size_t i = 0; i < pr->n_sample; i++)
		t += pr->sample[i]->value[col];
	return t;
}

Test(sample_kind, pprof_of_all_events_has_their_columns_side_by_side)
{
	struct profile *p = two_events();
	Profile *pr = write_event(p, -1);

	cr_assert_eq(pr->n_sample_type, 3);
	cr_expect_str_eq(pr->string_table[pr->sample_type[0]->type], "samples");
	cr_expect_str_eq(pr->string_table[pr->sample_type[1]->type], "cpu");
	cr_expect_str_eq(pr->string_table[pr->sample_type[2]->type], "off_cpu");
	cr_expect_str_eq(pr->string_table[pr->period_type->type], "cpu");
	cr_expect_eq(pr->period, 1000000);
	cr_expect_eq(total(pr, 0), 4);
	cr_expect_eq(total(pr, 1), 4000000);
	cr_expect_eq(total(pr, 2), 250000);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	profile__free(p);
}

Test(sample_kind, pprof_of_one_event_holds_its_samples_alone)
{
	struct profile *p = two_events();
	Profile *pr = write_event(p, 1);
	FILE *f = fopen("/dev/null", "w");

	cr_assert_eq(pr->n_sample_type, 1);
	cr_expect_str_eq(pr->string_table[pr->sample_type[0]->type], "off_cpu");
	cr_expect_str_eq(pr->string_table[pr->period_type->type], "off_cpu");
	cr_expect_eq(pr->n_sample, 1);
	cr_expect_eq(total(pr, 0), 250000);
	cr_expect_eq(pprof__write_event(p, 2, NULL, f), -EINVAL, "no such event");
	fclose(f);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	profile__free(p);
}

Test(sample_kind, push_request_is_a_series_per_event)
{
	static const char head[] =
		"{\"series\":[{\"labels\":[{\"name\":\"__name__\",\"value\":\"process_cpu\"},"
		"{\"name\":\"service_name\",\"value\":\"shop.web\"},"
		"{\"name\":\"hostname\",\"value\":\"h\\\"x\"}],\"samples\":[{\"rawProfile\":\"H4sI";
	struct profile *p = two_events();
	char *buf = NULL;
	size_t len = 0;

	cr_assert_eq(push_series__render(p, "shop.web", "h\"x", NULL, &buf, &len), 0);
	cr_assert_eq(strlen(buf), len);
	cr_expect_eq(strncmp(buf, head, strlen(head)), 0, "%.300s", buf);
	cr_expect_not_null(strstr(buf, "}]},{\"labels\":[{\"name\":\"__name__\",\"value\":\"off_cpu\"}"),
			   "the second series is off_cpu");
	cr_expect_str_eq(buf + len - 6, "\"}]}]}");
	free(buf);
	profile__free(p);
}
