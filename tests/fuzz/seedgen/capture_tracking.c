/* Captures the kernel's tracking records (bpfprof's side-band event) on
 * one CPU while a child forks, execs and exits: real bytes for the
 * tracker seed corpus. Records are written back to back, as the ring
 * holds them. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *mp;
	size_t pg = sysconf(_SC_PAGESIZE), n = 16;
	cpu_set_t set;
	char *data;
	FILE *out;
	int fd;

	if (argc < 3)
		return 2;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.size = sizeof(attr);
	attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
	if (fd < 0) { perror("perf_event_open"); return 1; }
	mp = mmap(NULL, (n + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) { perror("mmap"); return 1; }
	if (fork() == 0) {
		if (fork() == 0)
			_exit(0);
		wait(NULL);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	wait(NULL);
	__sync_synchronize();
	data = (char *)mp + pg;
	out = fopen(argv[1], "w");
	/* no wrap-around: the run is short and the ring has 64 KiB */
	fwrite(data + (mp->data_tail % (n * pg)), 1, mp->data_head - mp->data_tail, out);
	fclose(out);
	return 0;
}
