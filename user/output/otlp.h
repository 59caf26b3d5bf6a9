/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The OTLP profiles emitter: a profile as one ExportProfilesServiceRequest
 * of OpenTelemetry's development signal (opentelemetry.proto.collector.
 * profiles.v1development, proto/otlp_profiles_service.proto), serialized,
 * not compressed: the body OTLP/HTTP posts to /v1development/profiles and
 * what --format otlp files hold. */
#ifndef BPFPROF_OTLP_H
#define BPFPROF_OTLP_H

#include <stdio.h>

struct profile;

/* The resource's name, default and environment (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES: k=v,k2=v2, values percent-decoded; at most
 * OTLP_RESOURCE_MAX of them, each key and value at most OTLP_VALUE_MAX
 * bytes, the rest ignored). */
#define OTLP_SERVICE_DEFAULT	"bpfprof"
#define OTLP_RESOURCE_MAX	32
#define OTLP_VALUE_MAX		255

/* Writes the request: one dictionary shared by every table's user (each
 * table's entry 0 the zero value, no entry twice); one Profile per event
 * (cpu: samples/count, period cpu/nanoseconds); each sample's stack, its
 * value, its attributes thread.name, thread.id, process.pid and, from its
 * cgroup, process.linux.cgroup, container.id, k8s.pod.uid, systemd.unit;
 * the resource's host.name, service.name and OTEL_RESOURCE_ATTRIBUTES.
 * Returns 0 or -errno. */
int otlp__write(const struct profile *p, FILE *out);

#endif
