/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The OTLP profiles emitter: a profile as one ExportProfilesServiceRequest
 * of OpenTelemetry's development signal (opentelemetry.proto.collector.
 * profiles.v1development, upstream's .proto in output/proto/), serialized,
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

/* The semantic conventions the attributes follow (their version: the one
 * whose registry bpfprof's keys and frame types were read from). */
#define OTLP_SCHEMA_URL		"https://opentelemetry.io/schemas/1.44.0"
/* The unit a cgroup names: no semantic convention has one, so the key is
 * bpfprof's own, prefixed as the conventions ask of an application's. */
#define OTLP_SYSTEMD_UNIT_KEY	"bpfprof.systemd.unit"

/* Writes the request (doc/fleet.md, "What a Collector receives"): one
 * dictionary shared by every table's user (each table's entry 0 the zero
 * value, no entry twice, none unused; every string well-formed UTF-8); a
 * ResourceProfiles per process (and cgroup it ran in) with process.pid,
 * process.executable.path and .name, process.linux.cgroup, container.id,
 * k8s.pod.uid, bpfprof.systemd.unit, then host.name, service.name and
 * OTEL_RESOURCE_ATTRIBUTES, and the schema URL; in it a Profile per event
 * it has samples of (cpu: samples/count, period cpu/nanoseconds); each
 * sample a stack, its summed value, the attributes thread.id and
 * thread.name (alike samples merged); each location its
 * profile.frame.type. A profile without samples is one resource of the
 * host's with empty Profiles. Returns 0 or -errno. */
int otlp__write(const struct profile *p, FILE *out);

#endif
