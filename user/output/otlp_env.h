/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The attributes every resource of an OTLP request shares (otlp.c):
 * host.name, service.name (OTEL_SERVICE_NAME, default OTLP_SERVICE_DEFAULT)
 * and the pairs of OTEL_RESOURCE_ATTRIBUTES (k=v,k2=v2, percent-decoded; at
 * most OTLP_RESOURCE_MAX of them, each key and value cut to OTLP_VALUE_MAX
 * bytes, the first of a repeated key kept), every string well-formed
 * UTF-8 (base/utf8_safe.h). */
#ifndef BPFPROF_OTLP_ENV_H
#define BPFPROF_OTLP_ENV_H

#include <stddef.h>

#include "output/otlp.h"
#include "output/otlp_dict.h"

struct otlp_env {
	KeyValue kv[OTLP_RESOURCE_MAX + 2];
	AnyValue v[OTLP_RESOURCE_MAX + 2];
	char *text[OTLP_RESOURCE_MAX + 2][2];	/* key and value, owned */
	size_t n;
};

/* Reads the host's name and the environment into env. 0 or -ENOMEM. */
int otlp_env__read(struct otlp_env *env);

/* Appends to attrs[0..*n) (room for env->n more) env's attributes whose
 * key is not there yet. */
void otlp_env__append(const struct otlp_env *env, KeyValue **attrs, size_t *n);

void otlp_env__free(struct otlp_env *env);

#endif
