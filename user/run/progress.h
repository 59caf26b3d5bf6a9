/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The start line and the progress line on stderr (-q: neither,
 * --no-progress: no progress line). */
#ifndef BPFPROF_PROGRESS_H
#define BPFPROF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/config.h"
#include "sampling/session.h"

struct progress {
	bool enabled;		/* stderr is a terminal, one-shot, not -q/--no-progress */
	bool shown;		/* a progress line is on the screen now */
	uint64_t start_ns;	/* CLOCK_MONOTONIC, sampling began */
	uint64_t next_ns;	/* the next update is due */
};

/* One line: what is profiled, at what rate, where it goes, how to stop. */
void progress__start_line(const struct config *cfg, pid_t cmd_pid);

void progress__init(struct progress *p, const struct config *cfg, uint64_t start_ns);

/* From 2 s on, once a second: elapsed, samples so far and lost, from the
 * BPF side's own counters (no drain), rewritten in place. */
void progress__tick(struct progress *p, const struct session *s, uint64_t now);

/* Erases the progress line before anything else is printed. */
void progress__clear(struct progress *p);

#endif
