// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stackid_floor: runs the four programs of stackid_floor.bpf.c, each on its
 * own cpu-clock event on every CPU at the same frequency, for a while, and
 * prints each program's run_time_ns / run_cnt from BPF run-time statistics
 * (enabled with BPF_ENABLE_STATS for the run only: the kernel turns them
 * off again when the returned descriptor closes).
 *
 * Usage: stackid_floor [-F HZ] [-d SECONDS]     (defaults 997 and 3)
 * Output, one line per program:
 *   floor_both runs=5952 run_time_ns=1234567 ns_per_run=207.4
 * Exit status 0, 1 on an error (one line on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stackid_floor.skel.h"

#define NPROGS	4
#define MAX_CPUS 1024

struct floor_prog {
	const char *name;
	struct bpf_program *prog;
	struct bpf_link *links[MAX_CPUS];
	int fds[MAX_CPUS];
};

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !(*out >= lo) || *out > hi ? -1 : 0;
}

static int open_clock(int cpu, unsigned long hz)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = hz;
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens one event per online CPU for p and attaches p to each. An attached
 * event belongs to its link (bpf_link__destroy() closes it); fds[] keeps
 * only the events not attached. */
static int attach(struct floor_prog *p, int ncpus, unsigned long hz)
{
	int cpu, err, attached = 0;

	for (cpu = 0; cpu < ncpus; cpu++) {
		p->fds[cpu] = open_clock(cpu, hz);
		if (p->fds[cpu] < 0) {
			if (errno == ENODEV)	/* offline CPU */
				continue;
			fprintf(stderr, "stackid_floor: perf_event_open (cpu %d): %s\n", cpu,
				strerror(errno));
			return -1;
		}
		p->links[cpu] = bpf_program__attach_perf_event(p->prog, p->fds[cpu]);
		err = libbpf_get_error(p->links[cpu]);
		if (!err) {
			p->fds[cpu] = -1;	/* the link owns the event and closes it */
		} else {
			p->links[cpu] = NULL;
			fprintf(stderr, "stackid_floor: attach %s (cpu %d): %s\n", p->name, cpu,
				strerror((int)-err));
			return -1;
		}
		attached++;
	}
	if (!attached) {
		fprintf(stderr, "stackid_floor: no CPU to sample\n");
		return -1;
	}
	return 0;
}

static void detach(struct floor_prog *p, int ncpus)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		if (p->links[cpu] && bpf_link__destroy(p->links[cpu]))
			fprintf(stderr, "stackid_floor: detach %s (cpu %d) failed\n", p->name, cpu);
		p->links[cpu] = NULL;
		if (p->fds[cpu] >= 0 && close(p->fds[cpu]))
			fprintf(stderr, "stackid_floor: close: %s\n", strerror(errno));
		p->fds[cpu] = -1;
	}
}

static int sleep_seconds(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs,
			       .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			return -1;
	return 0;
}

static int report(const struct floor_prog *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p->prog), &info, &len)) {
		fprintf(stderr, "stackid_floor: prog info of %s: %s\n", p->name, strerror(errno));
		return -1;
	}
	if (printf("%s runs=%llu run_time_ns=%llu ns_per_run=%.1f\n", p->name,
		   (unsigned long long)info.run_cnt, (unsigned long long)info.run_time_ns,
		   info.run_cnt ? (double)info.run_time_ns / (double)info.run_cnt : 0.0) < 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct stackid_floor_bpf *skel = NULL;
	struct floor_prog progs[NPROGS];
	double hz = 997, secs = 3;
	int opt, i, ncpus, stats_fd = -1, ret = 1;

	while ((opt = getopt(argc, argv, "F:d:")) != -1) {
		if (opt == 'F' && !parse_num(optarg, 1, 100000, &hz) && hz == (double)(long)hz)
			continue;
		if (opt == 'd' && !parse_num(optarg, 0.01, 3600, &secs))
			continue;
		fprintf(stderr, "usage: %s [-F HZ (1..100000)] [-d SECONDS (0.01..3600)]\n", argv[0]);
		return 2;
	}
	if (optind != argc) {
		fprintf(stderr, "usage: %s [-F HZ] [-d SECONDS]\n", argv[0]);
		return 2;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 1) {
		fprintf(stderr, "stackid_floor: cannot count CPUs: %s\n", strerror(-ncpus));
		return 1;
	}
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	libbpf_set_print(quiet);

	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "stackid_floor: cannot enable BPF run-time statistics: %s\n",
			strerror(errno));
		return 1;
	}
	skel = stackid_floor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "stackid_floor: cannot load the BPF programs: %s\n", strerror(errno));
		goto out;
	}
	progs[0] = (struct floor_prog){ .name = "floor_empty", .prog = skel->progs.floor_empty };
	progs[1] = (struct floor_prog){ .name = "floor_kstack", .prog = skel->progs.floor_kstack };
	progs[2] = (struct floor_prog){ .name = "floor_ustack", .prog = skel->progs.floor_ustack };
	progs[3] = (struct floor_prog){ .name = "floor_both", .prog = skel->progs.floor_both };
	for (i = 0; i < NPROGS; i++)
		memset(progs[i].fds, -1, sizeof(progs[i].fds));

	for (i = 0; i < NPROGS; i++)
		if (attach(&progs[i], ncpus, (unsigned long)hz))
			goto detach;
	if (sleep_seconds(secs)) {
		fprintf(stderr, "stackid_floor: nanosleep: %s\n", strerror(errno));
		goto detach;
	}
	/* the statistics are read while the programs are still attached: they
	 * stay with the program, detaching only stops new runs */
	ret = 0;
	for (i = 0; i < NPROGS; i++)
		if (report(&progs[i]))
			ret = 1;
	if (fflush(stdout)) {
		fprintf(stderr, "stackid_floor: writing: %s\n", strerror(errno));
		ret = 1;
	}
detach:
	for (i = 0; i < NPROGS; i++)
		detach(&progs[i], ncpus);
out:
	stackid_floor_bpf__destroy(skel);
	if (stats_fd >= 0 && close(stats_fd)) {
		fprintf(stderr, "stackid_floor: close: %s\n", strerror(errno));
		ret = 1;
	}
	return ret;
}
