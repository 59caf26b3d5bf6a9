/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One event as perf names it, parsed (sampling/events.h parses, opens and
 * lists them): a leaf, so that config.h can hold the events asked for. */
#ifndef BPFPROF_EVENT_H
#define BPFPROF_EVENT_H

#include <stdbool.h>
#include <linux/types.h>

enum event_kind {
	EVENT_SOFTWARE,		/* cpu-clock, page-faults, context-switches... */
	EVENT_HARDWARE,		/* cycles, instructions... (needs a PMU) */
	EVENT_TRACEPOINT,	/* subsystem:name */
	EVENT_UPROBE,		/* u:PATH:SYMBOL */
	EVENT_OFFCPU,		/* --off-cpu: time blocked, from sched_switch */
};

struct event {
	char name[128];		/* as written (without :u/:k): the root frame */
	enum event_kind kind;
	__u32 type;		/* perf_event_attr.type and .config (sw/hw) */
	__u64 config;
	char sys[64], tp[128];	/* tracepoint */
	char path[4096], sym[128];	/* uprobe */
	bool exclude_user, exclude_kernel;	/* :k, :u */
	bool clock;		/* a time event: -F is its rate */
};

#endif
