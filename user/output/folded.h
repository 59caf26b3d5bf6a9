/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The folded-stacks emitter: "comm;outer;...;inner COUNT" per line, the
 * input of flamegraph.pl, speedscope, inferno and friends. */
#ifndef BPFPROF_FOLDED_H
#define BPFPROF_FOLDED_H

#include <stdio.h>

struct profile;
struct psample;

/* Formats one sample's stack (without the count) into a new string:
 * root (the event's name, if not NULL), then comm, kernel frames suffixed "_[k]" as stackcollapse-perf does,
 * names escaped as put_name() in folded.c says (';' is ':', a newline \n,
 * other control and invalid UTF-8 bytes \xHH) so the line stays parseable.
 * Returns NULL on allocation failure. */
char *folded__line(const struct psample *s, const char *root);

/* Writes the profile, samples with the same line merged, lines sorted.
 * Returns 0 or -errno (a write error). */
int folded__write(const struct profile *p, FILE *out);

/* How many lines folded__write() writes of p: its distinct stacks (0 when
 * out of memory). */
size_t folded__distinct(const struct profile *p);

#endif
