/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Fleet mode's exit lines: what the intervals hold against the BPF side's
 * own totals, and the file registry. */
#ifndef BPFPROF_FLEET_SUMMARY_H
#define BPFPROF_FLEET_SUMMARY_H

#include <stdint.h>

struct files;
struct output;

/* bpf_samples: the BPF side's never-reset sample total; offcpu_us: its
 * off-CPU microseconds (NULL: not profiled, or unreadable). */
void fleet_summary__print(const struct output *out, uint64_t bpf_samples,
			  const uint64_t *offcpu_us, const struct files *files);

#endif
