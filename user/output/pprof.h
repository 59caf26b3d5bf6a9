/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pprof emitter: gzip-compressed profile.proto, as `go tool pprof`,
 * Pyroscope, Parca and Grafana read it. */
#ifndef BPFPROF_PPROF_H
#define BPFPROF_PPROF_H

#include <stdio.h>

struct profile;

/* Writes the profile: each event's sample types (output/sample_kind.h:
 * CPU time samples/count and cpu/nanoseconds, off-CPU time
 * off_cpu/nanoseconds, any other event NAME/count), the first event's
 * period type and period, one Mapping per file (kernel frames in
 * [kernel.kallsyms]) with its build id and the flags of what its
 * locations hold, Locations with addresses, Functions, and pid, tid and
 * comm labels; the run's stats as comments (one a line of comment); every
 * string valid UTF-8 (base/utf8_safe.h). Returns 0 or -errno. */
int pprof__write(const struct profile *p, const char *comment, FILE *out);

/* The same of one event (index into p->events; -1: all): its samples,
 * its sample types and period, as Pyroscope takes a profile type a
 * profile. Returns 0 or -errno (-EINVAL: no such event). */
int pprof__write_event(const struct profile *p, int event, const char *comment, FILE *out);

#endif
