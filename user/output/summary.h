/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one line that accounts for every sample of a profile. */
#ifndef BPFPROF_SUMMARY_H
#define BPFPROF_SUMMARY_H

#include <stddef.h>

struct profile;

/* "N samples, S stacks, L lost (by reason), U/F frames unresolved, M
 * stack halves missing (a count whose kernel or user stack was not in the
 * stack map: its sample is kept, without that half), T tracking records
 * lost, D s (why)" into buf. */
void summary__format(const struct profile *p, const char *why, char *buf, size_t size);

#endif
