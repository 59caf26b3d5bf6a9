// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Owns the BPF objects of a run: the skeleton, the perf events, the links. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "events.h"
#include "session.h"
#include "profile.skel.h"

struct session {
	struct profile_bpf *skel;
	int ncpus;
	int *event_fds;			/* per CPU, -1 where none */
	struct bpf_link **links;	/* per CPU */
	unsigned int freq;
};

/* The kernel's BTF (or --btf's) must be there before anything else: CO-RE
 * programs cannot be relocated without it, and libbpf's own message for
 * that case is many lines deep in its log. */
static const char *bpf_strerror(int err, char *buf, size_t size)
{
	if (libbpf_strerror(err, buf, size))	/* libbpf's own codes, beyond errno's */
		snprintf(buf, size, "%s", strerror(-err));
	return buf;
}

static int check_btf(const char *path)
{
	struct btf *btf;
	char msg[128];
	int err;

	btf = path ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	err = libbpf_get_error(btf);
	if (!btf || err) {
		err = err ? (int)err : -ENOENT;
		if (path)
			fprintf(stderr, "bpfprof: cannot read BTF from %s: %s\n", path,
				bpf_strerror(err, msg, sizeof(msg)));
		else
			fprintf(stderr, "bpfprof: kernel BTF not available (/sys/kernel/btf/vmlinux: "
				"%s); a kernel built with CONFIG_DEBUG_INFO_BTF=y is needed, or --btf PATH\n",
				bpf_strerror(err, msg, sizeof(msg)));
		return err;
	}
	btf__free(btf);
	return 0;
}

static void report_load_error(int err)
{
	char msg[128];

	if (err == -EPERM || err == -EACCES)
		fprintf(stderr, "bpfprof: permission denied loading BPF programs: "
			"run as root (or with CAP_BPF and CAP_PERFMON)\n");
	else
		fprintf(stderr, "bpfprof: failed to load BPF programs: %s (run with -v for libbpf's log)\n",
			bpf_strerror(err, msg, sizeof(msg)));
}

int session__load(const struct session_opts *opts, struct session **out)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = opts->btf_path);
	struct session *s;
	int err;

	err = check_btf(opts->btf_path);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->freq = opts->freq;
	s->skel = profile_bpf__open_opts(&open_opts);
	if (!s->skel) {
		err = -errno;
		report_load_error(err);
		goto fail;
	}
	s->skel->rodata->filter_tgids = opts->filter_tgids;
	s->skel->rodata->kernel_stacks = opts->sides != SIDES_USER_ONLY;
	s->skel->rodata->user_stacks = opts->sides != SIDES_KERNEL_ONLY;
	err = bpf_map__set_max_entries(s->skel->maps.stacks, opts->max_stacks);
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.counts, opts->max_stacks);
	if (!err)
		err = profile_bpf__load(s->skel);
	if (err) {
		report_load_error(err);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	session__destroy(s);
	return err;
}

int session__add_tgid(struct session *s, pid_t tgid)
{
	__u32 key = (__u32)tgid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.tgids), &key, &one, BPF_ANY))
		return -errno;
	return 0;
}

static int open_events(struct session *s)
{
	int cpu, fd, opened = 0;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		fd = events_open_cpu_clock(s->freq, cpu);
		s->event_fds[cpu] = fd < 0 ? -1 : fd;
		if (fd == -ENODEV)	/* possible but offline */
			continue;
		if (fd < 0) {
			fprintf(stderr, "bpfprof: cannot open cpu-clock on CPU %d: %s\n",
				cpu, events_strerror(fd));
			return fd;
		}
		opened++;
	}
	if (!opened) {
		fprintf(stderr, "bpfprof: no online CPU could be sampled\n");
		return -ENODEV;
	}
	return 0;
}

static int attach_events(struct session *s)
{
	int cpu, err;

	for (cpu = 0; cpu < s->ncpus; cpu++) {
		if (s->event_fds[cpu] < 0)
			continue;
		s->links[cpu] = bpf_program__attach_perf_event(s->skel->progs.sample,
							       s->event_fds[cpu]);
		if (!s->links[cpu]) {
			err = -errno;
			fprintf(stderr, "bpfprof: cannot attach to CPU %d: %s\n", cpu, strerror(-err));
			return err;
		}
	}
	return 0;
}

int session__start(struct session *s)
{
	int err, cpu;

	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		fprintf(stderr, "bpfprof: cannot count CPUs: %s\n", strerror(-s->ncpus));
		return s->ncpus ? s->ncpus : -ENODEV;
	}
	s->event_fds = malloc(s->ncpus * sizeof(*s->event_fds));
	s->links = calloc(s->ncpus, sizeof(*s->links));
	if (!s->event_fds || !s->links)
		return -ENOMEM;
	for (cpu = 0; cpu < s->ncpus; cpu++)
		s->event_fds[cpu] = -1;
	err = open_events(s);
	if (!err)
		err = attach_events(s);
	if (err)
		session__stop(s);
	return err;
}

void session__stop(struct session *s)
{
	int cpu;

	for (cpu = 0; s->links && cpu < s->ncpus; cpu++) {
		bpf_link__destroy(s->links[cpu]);
		s->links[cpu] = NULL;
	}
	for (cpu = 0; s->event_fds && cpu < s->ncpus; cpu++) {
		if (s->event_fds[cpu] >= 0)
			close(s->event_fds[cpu]);
		s->event_fds[cpu] = -1;
	}
}

int session__counts_fd(const struct session *s)
{
	return bpf_map__fd(s->skel->maps.counts);
}

int session__stacks_fd(const struct session *s)
{
	return bpf_map__fd(s->skel->maps.stacks);
}

int session__read_stats(const struct session *s, uint64_t stats[STAT_MAX])
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(s->skel->maps.stats);
	uint64_t *percpu;
	__u32 kind;
	int cpu, err = 0;

	if (ncpus <= 0)
		return ncpus ? ncpus : -ENODEV;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (kind = 0; kind < STAT_MAX; kind++) {
		if (bpf_map_lookup_elem(fd, &kind, percpu)) {
			err = -errno;
			break;
		}
		stats[kind] = 0;
		for (cpu = 0; cpu < ncpus; cpu++)
			stats[kind] += percpu[cpu];
	}
	free(percpu);
	return err;
}

void session__destroy(struct session *s)
{
	if (!s)
		return;
	session__stop(s);
	free(s->links);
	free(s->event_fds);
	profile_bpf__destroy(s->skel);
	free(s);
}
