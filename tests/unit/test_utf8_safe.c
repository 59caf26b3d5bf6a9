// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of utf8_safe.c, and of the two protobuf writers that send
 * text through it: a comm of "\xff\xfe" leaves pprof and OTLP as the same
 * two U+FFFD, every string either writes is well-formed UTF-8. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "leak_check.h"
#include "base/utf8_safe.h"
#include "output/otlp.h"
#include "output/pprof.h"
#include "profile/aggregate.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"
#include "profile.pb-c.h"

TestSuite(utf8_safe, .fini = check_leaks);

#define R UTF8_SAFE_REPLACEMENT

static void expect_dup(const char *in, const char *want)
{
	char *out = utf8_safe__dup(in);

	cr_assert_not_null(out);
	cr_expect_str_eq(out, want, "%s", in);
	cr_expect(utf8_safe__valid(out));
	free(out);
}

/* Well-formed text, control characters included, is itself; each byte
 * that begins no character is one U+FFFD, whatever follows it. */
Test(utf8_safe, each_invalid_byte_is_one_replacement)
{
	const char *valid[] = { "", "app", "m\xc3\xbcller", "\xe4\xb8\xad\xe6\x96\x87",
				"\xf0\x9f\x98\x80", "tab\tnew\nline\x1b[2J", "\xef\xbf\xbd" };

	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		cr_expect(utf8_safe__valid(valid[i]), "%zu", i);
		expect_dup(valid[i], valid[i]);
	}
	expect_dup("\xff\xfe", R R);
	expect_dup("a\xff" "b", "a" R "b");
	expect_dup("\xc0\xaf", R R);			/* overlong '/' */
	expect_dup("\xe0\x80\xaf", R R R);		/* overlong, three bytes */
	expect_dup("\xed\xa0\x80", R R R);		/* a surrogate, U+D800 */
	expect_dup("\xf4\x90\x80\x80", R R R R);	/* past U+10FFFF */
	expect_dup("x\xe2\x82", "x" R R);		/* cut at the end */
	expect_dup("\xe2\x82" "a", R R "a");		/* cut by an ASCII byte */
	expect_dup("\x80\xbf", R R);			/* stray continuations */
	cr_expect_not(utf8_safe__valid("\xff\xfe"));
	cr_expect_not(utf8_safe__valid("ok\xc3"));
}

/* Every two-byte string: the repair is well-formed, and idempotent. */
Test(utf8_safe, every_pair_repaired_to_valid_idempotently)
{
	char in[3] = { 0 }, *once, *twice;

	for (int a = 1; a < 256; a++) {
		for (int b = 0; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			once = utf8_safe__dup(in);
			cr_assert_not_null(once);
			cr_assert(utf8_safe__valid(once), "%02x %02x", a, b);
			twice = utf8_safe__dup(once);
			cr_assert_str_eq(once, twice);
			cr_assert_eq(utf8_safe__valid(in), !strcmp(in, once), "%02x %02x", a, b);
			free(once);
			free(twice);
		}
	}
}

/* A profile of two threads of one process, one named "\xff\xfe" by
 * prctl, with a file name and a function name of invalid bytes too. */
static struct profile *hostile_profile(void)
{
	struct pframe f[] = {
		{ .name = "main", .mapping = "/bin/app\xff", .build_id = "", .file = "a\xfe.c",
		  .line = 3, .addr = 0x10, .map_limit = 0x1000 },
		{ .name = "bad\xc0\xaf", .mapping = "/bin/app\xff", .build_id = "", .file = "",
		  .addr = 0x20, .map_limit = 0x1000 },
	};
	struct profile *p = profile__new();

	cr_assert_not_null(p);
	p->stats.freq = 99;
	cr_assert_eq(profile__add(p, 0, "\xff\xfe", 10, 11, 0, 5, f, 2), 0);
	cr_assert_eq(profile__add(p, 0, "\xfe\xff", 10, 11, 0, 2, f, 2), 0);
	cr_assert_eq(profile__add(p, 0, "good", 10, 12, 0, 1, f, 1), 0);
	return p;
}

static char *written(const struct profile *p, int (*write)(const struct profile *, FILE *),
		     size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	cr_assert_not_null(f);
	cr_assert_eq(write(p, f), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static int pprof_write(const struct profile *p, FILE *f)
{
	return pprof__write(p, NULL, f);
}

static uint8_t *gunzip(const char *gz, size_t len, size_t *out_len)
{
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream z = { .next_in = (Bytef *)gz, .avail_in = (uInt)len, .next_out = out,
		       .avail_out = (uInt)cap };

	cr_assert_not_null(out);
	cr_assert_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	inflateEnd(&z);
	return out;
}

static bool has_string(char **table, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i], s))
			return true;
	return false;
}

Test(utf8_safe, pprof_and_otlp_repair_the_same_way)
{
	struct profile *p = hostile_profile();
	size_t len, raw_len;
	char *gz = written(p, pprof_write, &len), *otlp;
	uint8_t *raw = gunzip(gz, len, &raw_len);
	Perftools__Profiles__Profile *pp = perftools__profiles__profile__unpack(NULL, raw_len, raw);
	Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest *req;
	const Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary *d;
	const Opentelemetry__Proto__Profiles__V1development__Profile *prof;
	int names = 0;

	cr_assert_not_null(pp);
	for (size_t i = 0; i < pp->n_string_table; i++)
		cr_expect(utf8_safe__valid(pp->string_table[i]), "pprof string %zu", i);
	cr_expect(has_string(pp->string_table, pp->n_string_table, R R));
	cr_expect(has_string(pp->string_table, pp->n_string_table, "/bin/app" R));
	cr_expect(has_string(pp->string_table, pp->n_string_table, "bad" R R));
	otlp = written(p, otlp__write, &len);
	req = opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__unpack(
		NULL, len, (uint8_t *)otlp);
	cr_assert_not_null(req);
	d = req->dictionary;
	for (size_t i = 0; i < d->n_string_table; i++)
		cr_expect(utf8_safe__valid(d->string_table[i]), "otlp string %zu", i);
	cr_expect(has_string(d->string_table, d->n_string_table, "/bin/app" R));
	cr_expect(has_string(d->string_table, d->n_string_table, "bad" R R));
	cr_expect(has_string(d->string_table, d->n_string_table, "a" R ".c"));
	for (size_t i = 1; i < d->n_attribute_table; i++)
		if (d->attribute_table[i]->value->value_case ==
		    OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE)
			cr_expect(utf8_safe__valid(d->attribute_table[i]->value->string_value));
	/* the two names of thread 11 are one after the repair: one sample */
	cr_assert_eq(req->n_resource_profiles, 1);
	prof = req->resource_profiles[0]->scope_profiles[0]->profiles[0];
	cr_expect_eq(prof->n_samples, 2, "thread 11's two names merged: %zu", prof->n_samples);
	for (size_t i = 0; i < prof->n_samples; i++)
		for (size_t k = 0; k < prof->samples[i]->n_attribute_indices; k++) {
			const Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit *kv =
				d->attribute_table[prof->samples[i]->attribute_indices[k]];

			if (kv->value->value_case ==
			    OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE &&
			    !strcmp(d->string_table[kv->key_strindex], "thread.name") &&
			    !strcmp(kv->value->string_value, R R))
				names += prof->samples[i]->values[0] == 7;
		}
	cr_expect_eq(names, 1, "one sample of thread 11, 5 + 2, named " R R);
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__free_unpacked(req, NULL);
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(otlp);
	free(raw);
	free(gz);
	profile__free(p);
}
