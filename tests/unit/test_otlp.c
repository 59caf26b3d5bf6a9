// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of otlp.c: the request decodes, each dictionary table starts
 * with its zero value and holds no entry twice, inline frames are Lines of
 * one Location, a resource per process, frame types, Python functions
 * without their line, samples carry the thread's attributes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "profile/aggregate.h"
#include "output/otlp.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"

TestSuite(otlp, .fini = check_leaks);

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
	Request;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary Dictionary;

static Request *encode(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	Request *r;

	cr_assert_not_null(f);
	cr_assert_eq(otlp__write(p, f), 0);
	cr_assert_eq(fclose(f), 0);
	r = opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__unpack(
		NULL, len, (uint8_t *)buf);
	free(buf);
	cr_assert_not_null(r);
	return r;
}

static void free_request(Request *r)
{
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__free_unpacked(r, NULL);
}

static const char *fn_name(const Dictionary *d, int32_t fn)
{
	cr_assert_lt((size_t)fn, d->n_function_table);
	return d->string_table[d->function_table[fn]->name_strindex];
}

/* The attribute of a sample with key, or NULL. */
static const Opentelemetry__Proto__Common__V1__AnyValue *
sample_attr(const Dictionary *d, const Opentelemetry__Proto__Profiles__V1development__Sample *s,
	    const char *key)
{
	for (size_t i = 0; i < s->n_attribute_indices; i++) {
		const Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit *kv =
			d->attribute_table[s->attribute_indices[i]];

		if (!strcmp(d->string_table[kv->key_strindex], key))
			return kv->value;
	}
	return NULL;
}

/* Two stacks sharing main and work, work inlining hot into its code: one
 * location for the shared main, one location with two Lines (hot
 * innermost) for work's address, every table starting at its zero value. */
Test(otlp, dictionary_dedup_zero_and_inlines)
{
	struct pframe a[] = {
		{ .name = "main", .mapping = "/bin/app", .build_id = "abcd", .addr = 0x10,
		  .map_start = 0, .map_limit = 0x1000 },
		{ .name = "work", .mapping = "/bin/app", .build_id = "abcd", .addr = 0x20,
		  .map_limit = 0x1000, .file = "app.c", .line = 7 },
		{ .name = "hot", .mapping = "/bin/app", .build_id = "abcd", .addr = 0x20,
		  .map_limit = 0x1000, .file = "app.c", .line = 3, .inlined = true },
	};
	struct pframe b[] = { a[0], { .name = "cold", .mapping = "/bin/app", .build_id = "abcd",
				      .addr = 0x30, .map_limit = 0x1000 } };
	struct profile *p = profile__new();
	const Opentelemetry__Proto__Profiles__V1development__Profile *pr;
	const Opentelemetry__Proto__Profiles__V1development__Location *loc;
	const Opentelemetry__Proto__Profiles__V1development__Stack *st;
	const Dictionary *d;
	Request *r;

	cr_assert_not_null(p);
	p->stats.freq = 99;
	p->stats.start_wall_ns = 1700000000123456789ull;
	p->stats.duration = 2.0;
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 5, a, 3), 0);
	cr_assert_eq(profile__add(p, 0, "app", 10, 12, 0, 2, b, 2), 0);
	cr_assert_eq(profile__add(p, 0, "app", 10, 11, 0, 1, b, 2), 0);
	r = encode(p);
	d = r->dictionary;
	cr_assert_not_null(d);
	cr_expect_str_eq(d->string_table[0], "");
	cr_expect_eq(d->mapping_table[0]->filename_strindex, 0);
	cr_expect_eq(d->location_table[0]->n_lines, 0);
	cr_expect_eq(d->function_table[0]->name_strindex, 0);
	cr_expect_eq(d->stack_table[0]->n_location_indices, 0);
	cr_expect_eq(d->attribute_table[0]->key_strindex, 0);
	cr_expect_eq(d->n_link_table, 1);
	for (size_t i = 0; i < d->n_string_table; i++)
		for (size_t k = i + 1; k < d->n_string_table; k++)
			cr_expect_str_neq(d->string_table[i], d->string_table[k]);
	cr_expect_eq(d->n_mapping_table, 2, "zero + /bin/app: %zu", d->n_mapping_table);
	cr_expect_eq(d->n_function_table, 5, "zero + main work hot cold: %zu", d->n_function_table);
	cr_expect_eq(d->n_location_table, 4, "zero + 0x10 0x20 0x30: %zu", d->n_location_table);
	cr_expect_eq(d->n_stack_table, 3, "zero + two stacks: %zu", d->n_stack_table);
	pr = r->resource_profiles[0]->scope_profiles[0]->profiles[0];
	cr_assert_eq(pr->n_samples, 3);
	cr_expect_eq(pr->time_unix_nano, 1700000000123456789ull);
	cr_expect_eq(pr->duration_nano, 2000000000ull);
	cr_expect_eq(pr->period, 1000000000 / 99);
	cr_expect_eq(pr->samples[1]->stack_index, pr->samples[2]->stack_index);
	st = d->stack_table[pr->samples[0]->stack_index];
	cr_assert_eq(st->n_location_indices, 2);	/* leaf first: work(+hot), main */
	loc = d->location_table[st->location_indices[0]];
	cr_assert_eq(loc->n_lines, 2);
	cr_expect_str_eq(fn_name(d, loc->lines[0]->function_index), "hot");
	cr_expect_eq(loc->lines[0]->line, 3);
	cr_expect_str_eq(fn_name(d, loc->lines[1]->function_index), "work");
	cr_expect_eq(loc->address, 0x20);
	cr_expect_str_eq(d->string_table[d->mapping_table[loc->mapping_index]->filename_strindex],
			 "/bin/app");
	cr_expect_eq(d->mapping_table[loc->mapping_index]->n_attribute_indices, 1);
	cr_expect_str_eq(sample_attr(d, pr->samples[0], "thread.name")->string_value, "app");
	cr_expect_null(sample_attr(d, pr->samples[0], "process.pid"));	/* the resource's */
	cr_expect_eq(sample_attr(d, pr->samples[1], "thread.id")->int_value, 12);
	cr_expect_null(sample_attr(d, pr->samples[0], "container.id"));
	cr_expect_str_eq(d->link_table[0]->trace_id.len == 16 && d->link_table[0]->span_id.len == 8 ?
			 "16/8" : "other", "16/8");
	free_request(r);
	profile__free(p);
}

/* service.name from the environment, OTEL_RESOURCE_ATTRIBUTES decoded,
 * a repeated key kept once (the first), a pair without '=' ignored. */
Test(otlp, resource_from_environment)
{
	struct pframe a[] = { { .name = "main" } };
	struct profile *p = profile__new();
	const Opentelemetry__Proto__Resource__V1__Resource *res;
	Request *r;
	int seen = 0;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "app", 1, 1, 0, 1, a, 1), 0);
	setenv("OTEL_SERVICE_NAME", "checkout", 1);
	setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod%2Ceu,bogus,"
	       "service.name=ignored,team=a%3Db", 1);
	r = encode(p);
	unsetenv("OTEL_SERVICE_NAME");
	unsetenv("OTEL_RESOURCE_ATTRIBUTES");
	res = r->resource_profiles[0]->resource;
	cr_assert_eq(res->n_attributes, 5);	/* and process.pid */
	for (size_t i = 0; i < res->n_attributes; i++) {
		const char *k = res->attributes[i]->key, *v = res->attributes[i]->value->string_value;

		if (!strcmp(k, "service.name"))
			seen += !strcmp(v, "checkout");
		if (!strcmp(k, "deployment.environment"))
			seen += !strcmp(v, "prod,eu");
		if (!strcmp(k, "team"))
			seen += !strcmp(v, "a=b");
		if (!strcmp(k, "host.name"))
			seen += v[0] != '\0';
	}
	cr_expect_eq(seen, 4);
	free_request(r);
	profile__free(p);
}

static const Opentelemetry__Proto__Common__V1__AnyValue *
resource_attr(const Opentelemetry__Proto__Profiles__V1development__ResourceProfiles *rp, const char *key)
{
	for (size_t i = 0; i < rp->resource->n_attributes; i++)
		if (!strcmp(rp->resource->attributes[i]->key, key))
			return rp->resource->attributes[i]->value;
	return NULL;
}

/* The frame type of a location (its one attribute). */
static const char *frame_type(const Dictionary *d, int32_t loc)
{
	const Opentelemetry__Proto__Profiles__V1development__Location *l = d->location_table[loc];

	cr_assert_eq(l->n_attribute_indices, 1);
	cr_assert_str_eq(d->string_table[d->attribute_table[l->attribute_indices[0]]->key_strindex],
			 "profile.frame.type");
	return d->attribute_table[l->attribute_indices[0]]->value->string_value;
}

/* Two processes: a resource each, by pid, with the executable its stacks
 * show and the schema URL; kernel, native and Python frames typed; a
 * Python function one Function whatever line runs, named without it. */
Test(otlp, resource_per_process_and_frame_types)
{
	struct pframe py[] = {
		{ .name = "_start", .mapping = "/usr/bin/python3.11", .build_id = "", .addr = 0x55000010,
		  .map_start = 0x55000000, .map_limit = 0x55100000 },
		{ .name = "run (subprocess.py:550)", .mapping = "[python]", .file = "/usr/lib/subprocess.py",
		  .line = 550, .start_line = 540, .runtime = FK_PYTHON },
		{ .name = "read", .mapping = "/lib/libc.so.6", .build_id = "", .addr = 0x7f000020,
		  .map_start = 0x7f000000, .map_limit = 0x7f100000 },
		{ .name = "vfs_read", .mapping = "[kernel.kallsyms]", .addr = 0xffffffff81000000ull,
		  .kernel = true },
	};
	struct pframe py2[] = { py[0], { .name = "run (subprocess.py:551)", .mapping = "[python]",
					 .file = "/usr/lib/subprocess.py", .line = 551, .start_line = 540,
					 .runtime = FK_PYTHON } };
	struct pframe other[] = { { .name = "main", .mapping = "/opt/srv", .build_id = "", .addr = 0x401000,
				    .map_start = 0x400000, .map_limit = 0x500000 } };
	const Opentelemetry__Proto__Profiles__V1development__ResourceProfiles *rp;
	const Opentelemetry__Proto__Profiles__V1development__Stack *st;
	struct profile *p = profile__new();
	const Dictionary *d;
	int32_t fn_550, fn_551;
	Request *r;

	cr_assert_not_null(p);
	cr_assert_eq(profile__add(p, 0, "srv", 300, 300, 0, 4, other, 1), 0);
	cr_assert_eq(profile__add(p, 0, "python3", 200, 201, 0, 3, py, 4), 0);
	cr_assert_eq(profile__add(p, 0, "python3", 200, 201, 0, 1, py2, 2), 0);
	r = encode(p);
	d = r->dictionary;
	cr_assert_eq(r->n_resource_profiles, 2);
	rp = r->resource_profiles[0];
	cr_expect_eq(resource_attr(rp, "process.pid")->int_value, 200);
	cr_expect_str_eq(resource_attr(rp, "process.executable.path")->string_value, "/usr/bin/python3.11");
	cr_expect_str_eq(resource_attr(rp, "process.executable.name")->string_value, "python3.11");
	cr_expect_str_eq(resource_attr(rp, "service.name")->string_value, "bpfprof");
	cr_expect_str_eq(rp->schema_url, "https://opentelemetry.io/schemas/1.44.0");
	cr_expect_str_eq(rp->scope_profiles[0]->schema_url, rp->schema_url);
	cr_expect_eq(resource_attr(r->resource_profiles[1], "process.pid")->int_value, 300);
	cr_expect_str_eq(resource_attr(r->resource_profiles[1], "process.executable.name")->string_value, "srv");
	cr_assert_eq(rp->scope_profiles[0]->profiles[0]->n_samples, 2);
	st = d->stack_table[rp->scope_profiles[0]->profiles[0]->samples[0]->stack_index];
	cr_assert_eq(st->n_location_indices, 4);	/* leaf first */
	cr_expect_str_eq(frame_type(d, st->location_indices[0]), "kernel");
	cr_expect_str_eq(frame_type(d, st->location_indices[1]), "native");
	cr_expect_str_eq(frame_type(d, st->location_indices[2]), "cpython");
	cr_expect_str_eq(fn_name(d, d->location_table[st->location_indices[2]]->lines[0]->function_index), "run");
	fn_550 = d->location_table[st->location_indices[2]]->lines[0]->function_index;
	cr_expect_eq(d->location_table[st->location_indices[2]]->lines[0]->line, 550);
	st = d->stack_table[rp->scope_profiles[0]->profiles[0]->samples[1]->stack_index];
	cr_assert_eq(st->n_location_indices, 2);
	fn_551 = d->location_table[st->location_indices[0]]->lines[0]->function_index;
	cr_expect_eq(fn_550, fn_551, "one Function for run, whatever its line");
	free_request(r);
	profile__free(p);
}

/* A profile without samples: one resource of the host's, its interval. */
Test(otlp, empty_profile_one_host_resource)
{
	struct profile *p = profile__new();
	Request *r;

	cr_assert_not_null(p);
	p->stats.start_wall_ns = 42;
	r = encode(p);
	cr_assert_eq(r->n_resource_profiles, 1);
	cr_expect_null(resource_attr(r->resource_profiles[0], "process.pid"));
	cr_expect_not_null(resource_attr(r->resource_profiles[0], "host.name"));
	cr_assert_eq(r->resource_profiles[0]->scope_profiles[0]->n_profiles, 1);
	cr_expect_eq(r->resource_profiles[0]->scope_profiles[0]->profiles[0]->time_unix_nano, 42);
	free_request(r);
	profile__free(p);
}

/* Processes seen in any order, each again later: one resource each,
 * ordered by pid, holding all of its samples and no other's. */
Test(otlp, one_resource_per_process_whatever_the_order)
{
	static const pid_t pids[] = { 300, 100, 200, 400, 100, 300, 200, 400, 100 };
	struct pframe f[] = { { .name = "main", .mapping = "/bin/app", .build_id = "", .addr = 0x10,
				.map_limit = 0x1000 } };
	struct profile *p = profile__new();
	Request *r;

	cr_assert_not_null(p);
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++)
		cr_assert_eq(profile__add(p, 0, "app", pids[i], pids[i] + (pid_t)i, 0, 1, f, 1), 0);
	r = encode(p);
	cr_assert_eq(r->n_resource_profiles, 4);
	for (size_t i = 0; i < 4; i++) {
		const Opentelemetry__Proto__Profiles__V1development__ResourceProfiles *rp = r->resource_profiles[i];

		cr_expect_eq(resource_attr(rp, "process.pid")->int_value, 100 * (int64_t)(i + 1));
		cr_expect_eq(rp->scope_profiles[0]->profiles[0]->n_samples, i == 0 ? 3 : 2, "pid %zu00", i + 1);
	}
	free_request(r);
	profile__free(p);
}
