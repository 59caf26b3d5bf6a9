/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The OTLP request's shared dictionary (otlp_dict.c), for otlp.c and otlp_env.c:
 * its tables, each entry interned by the bytes that make it what it is,
 * so no entry is there twice, and index 0 of each the empty value. */
#ifndef BPFPROF_OTLP_DICT_H
#define BPFPROF_OTLP_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/aggregate.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
	Request;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary Dictionary;
typedef Opentelemetry__Proto__Profiles__V1development__ResourceProfiles ResourceProfiles;
typedef Opentelemetry__Proto__Profiles__V1development__ScopeProfiles ScopeProfiles;
typedef Opentelemetry__Proto__Profiles__V1development__Profile Profile;
typedef Opentelemetry__Proto__Profiles__V1development__ValueType ValueType;
typedef Opentelemetry__Proto__Profiles__V1development__Sample Sample;
typedef Opentelemetry__Proto__Profiles__V1development__Mapping Mapping;
typedef Opentelemetry__Proto__Profiles__V1development__Location Location;
typedef Opentelemetry__Proto__Profiles__V1development__Line Line;
typedef Opentelemetry__Proto__Profiles__V1development__Function Function;
typedef Opentelemetry__Proto__Profiles__V1development__Stack Stack;
typedef Opentelemetry__Proto__Profiles__V1development__Link Link;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit KeyValueAndUnit;
typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;
typedef Opentelemetry__Proto__Common__V1__InstrumentationScope Scope;
typedef Opentelemetry__Proto__Resource__V1__Resource Resource;

/* One table of the dictionary: its entries (char * for strings, else a
 * message each) and the tree that finds an entry by its key. */
struct table {
	void **items;
	size_t n, cap;
	void *tree;		/* struct dkey by bytes */
};

struct enc {
	struct table strings, attrs, functions, mappings, locations, stacks;
	int err;			/* the first failure: -ENOMEM */
};

/* Entry 0 of every table: the zero value, so that index 0 is "none". */
void otlp_dict__init(struct enc *e);

/* The index of s in the string table, added on first sight; s as
 * well-formed UTF-8 (base/utf8_safe.h). */
int32_t otlp_dict__str(struct enc *e, const char *s);

/* The index of the attribute key = value in the attribute table. */
int32_t otlp_dict__attr_str(struct enc *e, const char *key, const char *value);
int32_t otlp_dict__attr_int(struct enc *e, const char *key, int64_t value);

/* The index of ps's stack in the stack table, leaf first; its locations
 * with their Lines (an address's inlined frames innermost first), their
 * mapping and their profile.frame.type (exe: the process's executable,
 * "" when unknown; output/frame_kind.h). */
int32_t otlp_dict__stack(struct enc *e, const struct psample *ps, const char *exe);

/* The tables' entries and trees. */
void otlp_dict__free(struct enc *e);

#endif
