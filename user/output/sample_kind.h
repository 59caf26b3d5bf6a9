/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What an event's values are called where they leave bpfprof, in one
 * place: pprof's sample and period types, OTLP's, and the profile name
 * Grafana Pyroscope files them under.
 *
 *   event        pprof sample types                  period type        Pyroscope
 *   CPU clock    samples/count, cpu/nanoseconds      cpu/nanoseconds    process_cpu
 *   off-CPU      off_cpu/nanoseconds                 off_cpu/nanoseconds off_cpu
 *   any other    NAME/count (NAME: the event's,      NAME/count         NAME
 *                [A-Za-z0-9_] only)
 *
 * Pyroscope refuses a sample type with a '-' (and splits its profile type
 * ids at ':'), hence NAME's alphabet; "process_cpu" and "off_cpu" are the
 * names its own converters give CPU time and off-CPU time
 * (pkg/ingester/otlp/convert.go, pkg/model/labels.go ProfileNameOffCpu).
 */
#ifndef BPFPROF_SAMPLE_KIND_H
#define BPFPROF_SAMPLE_KIND_H

#include <stdint.h>

#include "profile/aggregate.h"

#define SAMPLE_KIND_NAME	128

struct sample_kind {
	const char *profile;		/* Pyroscope's profile name (__name__) */
	int nvalues;			/* 2 for CPU time, else 1 */
	const char *type[2], *unit[2];	/* pprof's sample types; [0] is OTLP's */
	const char *period_type, *period_unit;
	int64_t period;			/* 0: not known */
	char name[SAMPLE_KIND_NAME];	/* PEVENT_COUNT's type: the event's name */
};

/* Event i of p; of a profile without events (read from elsewhere), CPU
 * time at its frequency, described in *spare. */
const struct pevent *sample_kind__event(const struct profile *p, int i, struct pevent *spare);

/* ev's kind into *k (which holds the strings it points to). */
void sample_kind__of(const struct pevent *ev, struct sample_kind *k);

/* Sample s's i-th value in the unit of k's type i: CPU time as samples,
 * then samples x period in nanoseconds; off-CPU microseconds as
 * nanoseconds; a count as samples x period (samples when not known). */
int64_t sample_kind__value(const struct sample_kind *k, const struct pevent *ev,
			   const struct psample *s, int i);

#endif
