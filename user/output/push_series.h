/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A profile as the body of Grafana Pyroscope's push API, POST
 * /push.v1.PusherService/Push (connect, Content-Type application/json):
 * a PushRequest of one series per event, each its own pprof (base64, as
 * protojson writes bytes) with the labels __name__ (the event's profile
 * name, output/sample_kind.h), service_name (--app) and hostname:
 *
 *   {"series":[{"labels":[{"name":"__name__","value":"process_cpu"},
 *     {"name":"service_name","value":"APP"},{"name":"hostname","value":"H"}],
 *     "samples":[{"rawProfile":"H4sI..."}]}, ...]}
 */
#ifndef BPFPROF_PUSH_SERIES_H
#define BPFPROF_PUSH_SERIES_H

#include <stddef.h>

struct profile;

#define PUSH_SERIES_PATH	"/push.v1.PusherService/Push"

/* The request into a new buffer (*buf, *len; free() it); comment goes
 * into each pprof. Returns 0 or -errno. */
int push_series__render(const struct profile *p, const char *app, const char *host,
			const char *comment, char **buf, size_t *len);

#endif
