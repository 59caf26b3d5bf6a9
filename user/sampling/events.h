/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Events by perf's names: parsing (no fd), opening, listing what opens. */
#ifndef BPFPROF_EVENTS_H
#define BPFPROF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include "base/event.h"

/* Parses a comma-separated list into evs[max]. Opens nothing. Returns 0,
 * or -EINVAL with a one-line reason in err. */
int events__parse(const char *list, struct event *evs, int max, int *n, char *err, size_t errlen);

/* Opens a software, hardware or tracepoint event on one CPU, sampling at
 * freq Hz or every period events (tracepoints: every hit). Returns the fd,
 * or -errno (-ENODEV: the CPU is offline). */
int events__open(const struct event *ev, unsigned int freq, unsigned long long period, int cpu);

/* Mounts tracefs at /sys/kernel/tracing if it is not there (and we may):
 * tracepoints are found by their ids in it. */
void events__ensure_tracefs(void);

/* The attributes of the side-band event that reports process lifetimes
 * (fork, exec, exit) and executable mmaps, as perf record's tracking
 * event does: a dummy software event with mmap2/comm/task records,
 * timestamped with CLOCK_MONOTONIC. */
void events_tracking_attr(struct perf_event_attr *attr);

/* Prints the events this machine can open, probing each, by kind. */
void events__list(FILE *out);

/* One line naming what an errno from opening ev means here. */
const char *events__strerror(const struct event *ev, int err);

#endif
