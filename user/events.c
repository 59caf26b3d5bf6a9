// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Opening perf events: the sampling clock and the tracking side-band. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "events.h"

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int events_open_cpu_clock(unsigned int freq, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = freq,
	};

	return perf_event_open(&attr, -1, cpu);
}

void events_tracking_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->size = sizeof(*attr);
	attr->mmap = 1;		/* executable mappings only: no mmap_data */
	attr->mmap2 = 1;	/* with device, inode and flags */
	attr->comm = 1;
	attr->comm_exec = 1;	/* flag the comm records that are exec()s */
	attr->task = 1;		/* fork and exit */
	/* Records of one process can land in different CPUs' buffers (it
	 * migrates); a timestamp on each lets the reader order them. */
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = 1;
}

const char *events_strerror(int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		return "permission denied: profiling needs root (or CAP_PERFMON and CAP_BPF)";
	case -ENOENT:
	case -EOPNOTSUPP:
		return "this event is not supported by the kernel or the hardware";
	case -EINVAL:
		return "invalid event settings (frequency above kernel.perf_event_max_sample_rate?)";
	case -EMFILE:
		return "too many open files (raise ulimit -n)";
	default:
		return strerror(-err);
	}
}
