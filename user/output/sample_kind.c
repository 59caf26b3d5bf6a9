// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An event's sample types, period type and Pyroscope name (sample_kind.h). */
#include <string.h>

#include "output/sample_kind.h"

#define NS_PER_US	1000

/* name with every byte outside [A-Za-z0-9_] made '_' ("page-faults":
 * "page_faults", "sched:sched_switch": "sched_sched_switch"). */
static void type_name(const char *name, char *out, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++) {
		char c = name[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ?
			 c : '_';
	}
	out[i] = '\0';
	if (!i)
		strcpy(out, "events");
}

const struct pevent *sample_kind__event(const struct profile *p, int i, struct pevent *spare)
{
	if (i >= 0 && i < p->nevents)
		return &p->events[i];
	*spare = (struct pevent){ .name = "cpu", .unit = "count", .kind = PEVENT_CPU,
		.period = p->stats.freq ? 1000000000ull / p->stats.freq : 0 };
	return spare;
}

void sample_kind__of(const struct pevent *ev, struct sample_kind *k)
{
	memset(k, 0, sizeof(*k));
	k->nvalues = 1;
	k->period = (int64_t)ev->period;
	switch (ev->kind) {
	case PEVENT_CPU:
		k->profile = "process_cpu";
		k->nvalues = 2;
		k->type[0] = "samples";
		k->unit[0] = "count";
		k->type[1] = k->period_type = "cpu";
		k->unit[1] = k->period_unit = "nanoseconds";
		break;
	case PEVENT_OFFCPU:
		/* every blocked nanosecond is counted: no sampling */
		k->profile = k->type[0] = k->period_type = "off_cpu";
		k->unit[0] = k->period_unit = "nanoseconds";
		k->period = 1;
		break;
	case PEVENT_COUNT:
		type_name(ev->name, k->name, sizeof(k->name));
		k->profile = k->type[0] = k->period_type = k->name;
		k->unit[0] = k->period_unit = "count";
		break;
	}
}

int64_t sample_kind__value(const struct sample_kind *k, const struct pevent *ev,
			   const struct psample *s, int i)
{
	switch (ev->kind) {
	case PEVENT_CPU:
		return i == 0 ? (int64_t)s->raw : (int64_t)s->raw * k->period;
	case PEVENT_OFFCPU:
		return (int64_t)s->count * NS_PER_US;
	case PEVENT_COUNT:
		break;
	}
	return (int64_t)s->raw * (k->period ? k->period : 1);
}
