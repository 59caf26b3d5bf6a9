// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of otlp.c: the request decodes, each dictionary table starts
 * with its zero value and holds no entry twice, inline frames are Lines of
 * one Location, samples carry their attributes. */
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
	cr_expect_eq(sample_attr(d, pr->samples[0], "process.pid")->int_value, 10);
	cr_expect_eq(sample_attr(d, pr->samples[1], "thread.id")->int_value, 12);
	cr_expect_null(sample_attr(d, pr->samples[0], "container.id"));
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
	cr_assert_eq(res->n_attributes, 4);
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
