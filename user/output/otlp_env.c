// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The host's and the environment's resource attributes (otlp_env.h);
 * bounded: the environment is the user's, the limits are ours. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8_safe.h"
#include "output/otlp_env.h"

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

/* key = val added unless key is there already (the first one given wins). */
static int put(struct otlp_env *env, const char *key, size_t klen, const char *val, size_t vlen)
{
	char k[OTLP_VALUE_MAX + 1], v[OTLP_VALUE_MAX + 1];
	size_t i = env->n;

	if (i >= OTLP_RESOURCE_MAX + 2 || klen == 0)
		return 0;
	percent_decode(key, klen, k, sizeof(k));
	percent_decode(val, vlen, v, sizeof(v));
	for (size_t j = 0; j < i; j++)
		if (!strcmp(env->kv[j].key, k))
			return 0;
	env->text[i][0] = utf8_safe__dup(k);
	env->text[i][1] = utf8_safe__dup(v);
	if (!env->text[i][0] || !env->text[i][1]) {
		free(env->text[i][0]);
		free(env->text[i][1]);
		return -ENOMEM;
	}
	opentelemetry__proto__common__v1__key_value__init(&env->kv[i]);
	opentelemetry__proto__common__v1__any_value__init(&env->v[i]);
	env->kv[i].key = env->text[i][0];
	env->v[i].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	env->v[i].string_value = env->text[i][1];
	env->kv[i].value = &env->v[i];
	env->n++;
	return 0;
}

int otlp_env__read(struct otlp_env *env)
{
	const char *svc = getenv("OTEL_SERVICE_NAME"), *pairs = getenv("OTEL_RESOURCE_ATTRIBUTES");
	char host[256];
	size_t len, eq;
	int err;

	if (gethostname(host, sizeof(host)) || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (!svc || !svc[0])
		svc = OTLP_SERVICE_DEFAULT;
	err = put(env, "host.name", 9, host, strlen(host));
	if (!err)
		err = put(env, "service.name", 12, svc, strlen(svc));
	while (!err && pairs && *pairs) {
		len = strcspn(pairs, ",");
		eq = strcspn(pairs, "=");
		if (eq < len)
			err = put(env, pairs, eq, pairs + eq + 1, len - eq - 1);
		pairs += len + (pairs[len] == ',');
	}
	return err;
}

void otlp_env__append(const struct otlp_env *env, KeyValue **attrs, size_t *n)
{
	size_t had = *n, k;

	for (size_t i = 0; i < env->n; i++) {
		for (k = 0; k < had && strcmp(attrs[k]->key, env->kv[i].key); k++)
			;
		if (k == had)
			attrs[(*n)++] = (KeyValue *)&env->kv[i];
	}
}

void otlp_env__free(struct otlp_env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->text[i][0]);
		free(env->text[i][1]);
	}
}
