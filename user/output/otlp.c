// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* profile -> ExportProfilesServiceRequest (protobuf-c, generated from
 * user/output/proto/otlp_*.proto): a Profile per event over the shared
 * dictionary (otlp_dict.c), the resource from the OTel environment. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/otlp.h"
#include "output/otlp_dict.h"

/* The messages around the dictionary, for one request. */
struct request {
	Request req;
	Dictionary dict;
	Link zero_link, *links[1];
	ResourceProfiles rp, *rps[1];
	ScopeProfiles sp, *sps[1];
	Scope scope;
	Resource resource;
	KeyValue res_kv[OTLP_RESOURCE_MAX + 2], *res_ptrs[OTLP_RESOURCE_MAX + 2];
	AnyValue res_v[OTLP_RESOURCE_MAX + 2];
	char res_text[OTLP_RESOURCE_MAX + 2][2][OTLP_VALUE_MAX + 1];
	Profile profiles[MAX_EVENTS], *profile_ptrs[MAX_EVENTS];
	ValueType types[MAX_EVENTS][2];
};

/* One Profile per event: its samples, its type, the interval. */
static void event_profile(struct enc *e, struct request *r, const struct profile *p, int ev)
{
	Profile *pr = &r->profiles[ev];
	ValueType *t = r->types[ev];
	bool one = p->nevents <= 1;

	opentelemetry__proto__profiles__v1development__profile__init(pr);
	opentelemetry__proto__profiles__v1development__value_type__init(&t[0]);
	opentelemetry__proto__profiles__v1development__value_type__init(&t[1]);
	t[0].type_strindex = otlp_dict__str(e, one ? "samples" : p->events[ev].name);
	t[0].unit_strindex = otlp_dict__str(e, one ? "count" : p->events[ev].unit);
	pr->sample_type = &t[0];
	if (one && p->stats.freq) {
		t[1].type_strindex = otlp_dict__str(e, "cpu");
		t[1].unit_strindex = otlp_dict__str(e, "nanoseconds");
		pr->period_type = &t[1];
		pr->period = 1000000000ll / p->stats.freq;
	}
	pr->time_unix_nano = p->stats.start_wall_ns;
	pr->duration_nano = profile_stats__duration_ns(&p->stats);
	pr->samples = calloc(p->nsamples ? p->nsamples : 1, sizeof(*pr->samples));
	if (!pr->samples) {
		e->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < p->nsamples && !e->err; i++)
		if (one || p->samples[i].event == (uint32_t)ev)
			if ((pr->samples[pr->n_samples] = otlp_dict__sample(e, &p->samples[i])))
				pr->n_samples++;
	r->profile_ptrs[ev] = pr;
}

/* %XX in s undone, into out (size bytes, cut to fit). */
static void percent_decode(const char *s, size_t len, char *out, size_t size)
{
	size_t n = 0;
	unsigned int c;

	for (size_t i = 0; i < len && n + 1 < size; i++) {
		if (s[i] == '%' && i + 2 < len && sscanf(s + i + 1, "%2x", &c) == 1 &&
		    isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
			out[n++] = (char)c;
			i += 2;
		} else {
			out[n++] = s[i];
		}
	}
	out[n] = '\0';
}

static void resource_attr(struct request *r, const char *key, size_t klen, const char *val,
			  size_t vlen)
{
	size_t i = r->resource.n_attributes;
	char (*text)[OTLP_VALUE_MAX + 1];

	if (i >= OTLP_RESOURCE_MAX + 2 || klen == 0)
		return;
	text = r->res_text[i];
	percent_decode(key, klen, text[0], sizeof(text[0]));
	percent_decode(val, vlen, text[1], sizeof(text[1]));
	for (size_t k = 0; k < i; k++)
		if (!strcmp(r->res_kv[k].key, text[0]))
			return;		/* the first one given wins */
	opentelemetry__proto__common__v1__key_value__init(&r->res_kv[i]);
	opentelemetry__proto__common__v1__any_value__init(&r->res_v[i]);
	r->res_kv[i].key = text[0];
	r->res_v[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	r->res_v[i].string_value = text[1];
	r->res_kv[i].value = &r->res_v[i];
	r->res_ptrs[i] = &r->res_kv[i];
	r->resource.n_attributes++;
}

/* host.name, service.name, then OTEL_RESOURCE_ATTRIBUTES' pairs (bounded:
 * the environment is the user's, the limits are ours). */
static void resource(struct request *r)
{
	const char *svc = getenv("OTEL_SERVICE_NAME"), *env = getenv("OTEL_RESOURCE_ATTRIBUTES");
	char host[256];
	size_t len, eq;

	opentelemetry__proto__resource__v1__resource__init(&r->resource);
	r->resource.attributes = r->res_ptrs;
	if (gethostname(host, sizeof(host)) || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	resource_attr(r, "host.name", 9, host, strlen(host));
	if (!svc || !svc[0])
		svc = OTLP_SERVICE_DEFAULT;
	resource_attr(r, "service.name", 12, svc, strlen(svc));
	while (env && *env) {
		len = strcspn(env, ",");
		eq = strcspn(env, "=");
		if (eq < len)
			resource_attr(r, env, eq, env + eq + 1, len - eq - 1);
		env += len + (env[len] == ',');
	}
}

static void request(struct enc *e, struct request *r, const struct profile *p)
{
	int nprof = p->nevents > 1 ? p->nevents : 1;

	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__init(&r->req);
	opentelemetry__proto__profiles__v1development__profiles_dictionary__init(&r->dict);
	opentelemetry__proto__profiles__v1development__link__init(&r->zero_link);
	opentelemetry__proto__profiles__v1development__resource_profiles__init(&r->rp);
	opentelemetry__proto__profiles__v1development__scope_profiles__init(&r->sp);
	opentelemetry__proto__common__v1__instrumentation_scope__init(&r->scope);
	otlp_dict__init(e);
	resource(r);
	r->scope.name = "bpfprof";
	r->scope.version = BPFPROF_VERSION;
	for (int ev = 0; ev < nprof && !e->err; ev++)
		event_profile(e, r, p, ev);
	r->sp.scope = &r->scope;
	r->sp.profiles = r->profile_ptrs;
	r->sp.n_profiles = (size_t)nprof;
	r->sps[0] = &r->sp;
	r->rp.resource = &r->resource;
	r->rp.scope_profiles = r->sps;
	r->rp.n_scope_profiles = 1;
	r->rps[0] = &r->rp;
	r->req.resource_profiles = r->rps;
	r->req.n_resource_profiles = 1;
	r->links[0] = &r->zero_link;
	r->dict.link_table = r->links;
	r->dict.n_link_table = 1;
	r->dict.string_table = (char **)e->strings.items;
	r->dict.n_string_table = e->strings.n;
	r->dict.attribute_table = (KeyValueAndUnit **)e->attrs.items;
	r->dict.n_attribute_table = e->attrs.n;
	r->dict.function_table = (Function **)e->functions.items;
	r->dict.n_function_table = e->functions.n;
	r->dict.mapping_table = (Mapping **)e->mappings.items;
	r->dict.n_mapping_table = e->mappings.n;
	r->dict.location_table = (Location **)e->locations.items;
	r->dict.n_location_table = e->locations.n;
	r->dict.stack_table = (Stack **)e->stacks.items;
	r->dict.n_stack_table = e->stacks.n;
	r->req.dictionary = &r->dict;
}

static void free_request(struct enc *e, struct request *r)
{
	for (size_t i = 0; i < r->sp.n_profiles; i++) {
		for (size_t k = 0; k < r->profiles[i].n_samples; k++)
			free(r->profiles[i].samples[k]);	/* the sample_block */
		free(r->profiles[i].samples);
	}
	otlp_dict__free(e);
	free(r);
}

int otlp__write(const struct profile *p, FILE *out)
{
	struct request *r = calloc(1, sizeof(*r));
	struct enc e = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if (!r)
		return -ENOMEM;
	request(&e, r, p);
	err = e.err;
	if (!err) {
		len = opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__get_packed_size(&r->req);
		buf = malloc(len ? len : 1);
		err = buf ? 0 : -ENOMEM;
	}
	if (!err) {
		opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__pack(&r->req, buf);
		if (fwrite(buf, 1, len, out) != len || fflush(out))
			err = errno ? -errno : -EIO;
	}
	free(buf);
	free_request(&e, r);
	return err;
}
