/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Drained records -> symbolized profile samples. */
#ifndef BPFPROF_RESOLVE_H
#define BPFPROF_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Every address resolve__drained() looks kernel symbols up by in d[0..nd)
 * (NULL entries skipped), sorted and distinct, into *addrs (malloc'd; NULL
 * when there is none) and *n: what ksyms__load_for() needs. 0 or -ENOMEM. */
int resolve__kernel_addrs(const struct drained *const *d, size_t nd, uint64_t **addrs, size_t *n);

#endif
