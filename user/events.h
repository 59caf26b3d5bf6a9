/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* perf_event_open() for the events bpfprof samples on and tracks with. */
#ifndef BPFPROF_EVENTS_H
#define BPFPROF_EVENTS_H

#include <linux/perf_event.h>

/* The sampling event for one CPU: cpu-clock at freq Hz, all tasks.
 * Returns the fd, or -errno (-ENODEV: the CPU is offline). */
int events_open_cpu_clock(unsigned int freq, int cpu);

/* The attributes of the side-band event that reports process lifetimes
 * (fork, exec, exit) and executable mmaps, as perf record's tracking
 * event does: a dummy software event with mmap2/comm/task records,
 * timestamped with CLOCK_MONOTONIC. */
void events_tracking_attr(struct perf_event_attr *attr);

/* One line naming what a perf_event_open errno means here. */
const char *events_strerror(int err);

#endif
