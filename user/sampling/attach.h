/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Attaching the sampler to each event: perf events on every CPU, uprobes,
 * the off-CPU tracepoint. The attach cookie tells the program which event
 * fired. */
#ifndef BPFPROF_ATTACH_H
#define BPFPROF_ATTACH_H

#include "sampling/events.h"

struct bpf_program;
struct attachments;

struct attach_progs {
	struct bpf_program *perf;	/* software and hardware events */
	struct bpf_program *tp;		/* tracepoints */
	struct bpf_program *uprobe;
	struct bpf_program *offcpu;
};

/* Attaches evs[i] with cookie i. On failure prints one line naming the
 * event and the reason, and returns -errno (nothing stays attached). */
int attach__events(const struct attach_progs *progs, const struct event *evs, int n,
		   unsigned int freq, unsigned long long period, struct attachments **out);

/* Adds an already-made link (a helper program's) to be destroyed with the rest. */
int attach__link(struct attachments *a, struct bpf_link *link);

/* Detaches everything and closes the events. */
void attach__free(struct attachments *a);

#endif
