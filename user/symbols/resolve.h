/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Drained records -> symbolized profile samples. */
#ifndef BPFPROF_RESOLVE_H
#define BPFPROF_RESOLVE_H

#include <stdbool.h>

struct drained;
struct ksyms;
struct symbolizer;
struct profile;
struct runtimes;

/* Symbolizes every record of d (kernel frames through ks, which may be NULL
 * when kallsyms is unreadable; user frames through sz, runtimes' frames
 * (CPython's) through rts, NULL without them) and adds it to p, counting frames and unresolved
 * frames in p->stats. exec_known: the keys' exec_time is filled in by the
 * BPF side. Returns 0 or -ENOMEM. */
int resolve__drained(const struct drained *d, const struct ksyms *ks, struct symbolizer *sz,
		     const struct runtimes *rts, bool exec_known, struct profile *p);

#endif
