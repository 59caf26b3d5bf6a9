/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pprof emitter: gzip-compressed profile.proto, as `go tool pprof`,
 * Pyroscope, Parca and Grafana read it. */
#ifndef BPFPROF_PPROF_H
#define BPFPROF_PPROF_H

#include <stdio.h>

struct profile;

/* Writes the profile: sample types samples/count and cpu/nanoseconds,
 * period from the frequency, one Mapping per file (kernel frames in
 * [kernel.kallsyms]) with its build id and the flags of what its
 * locations hold, Locations with addresses, Functions, and pid, tid and
 * comm labels; the run's stats as comments (one a line of comment); every
 * string valid UTF-8 (base/utf8_safe.h). Returns 0 or -errno. */
int pprof__write(const struct profile *p, const char *comment, FILE *out);

#endif
