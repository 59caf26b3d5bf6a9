// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Whose a running process is (procs.h: struct proc_owner), read from
 * /proc with its start time, so a reused pid is not taken for it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procs/procs.h"
#include "procs/target.h"

/* CLOCK_MONOTONIC ns as /proc/PID/stat's start ticks count (CLOCK_BOOTTIME):
 * what the machine slept is added. */
static uint64_t boottime_of(uint64_t mono_ns)
{
	struct timespec boot, mono;
	int64_t slept;

	/* monotonic first: the difference is never below what was slept */
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	slept = (int64_t)(boot.tv_sec - mono.tv_sec) * 1000000000 + (boot.tv_nsec - mono.tv_nsec);
	return mono_ns + (uint64_t)(slept > 0 ? slept : 0);
}

/* The Uid: and NSpid: lines of /proc/TGID/status. */
static int read_status(pid_t tgid, struct proc_owner *o, pid_t *nspid)
{
	char path[64], *line = NULL, *last;
	unsigned int ruid, euid;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tgid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	o->known = false;
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "Uid:", 4) && sscanf(line + 4, "%u %u", &ruid, &euid) == 2) {
			o->ruid = ruid;
			o->euid = euid;
			o->known = true;
		} else if (nspid && !strncmp(line, "NSpid:", 6)) {
			last = strrchr(line, '\t');
			if (last && atoi(last + 1) > 0)
				*nspid = (pid_t)atoi(last + 1);
		}
	}
	free(line);
	fclose(f);
	return o->known ? 0 : -ESRCH;
}

int proc_owner__read(pid_t tgid, uint64_t born_by, struct proc_owner *o, pid_t *nspid)
{
	uint64_t tick_ns = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK), before, after;
	struct proc_owner got = { 0 };

	if (nspid)
		*nspid = tgid;
	/* the same process before and after its status was read, started
	 * by born_by (its start rounded down to a tick) */
	if (id_start_ticks(tgid, &before) || read_status(tgid, &got, nspid) ||
	    id_start_ticks(tgid, &after) || before != after ||
	    before * tick_ns > boottime_of(born_by))
		return -ESRCH;
	got.start_ticks = before;
	*o = got;
	return 0;
}
