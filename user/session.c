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
	int sync_inner_fd, sync_outer_fd;	/* see session__flip() */
	int ncpus;
	int *event_fds;			/* per CPU, -1 where none */
	struct bpf_link **links;	/* per CPU */
	unsigned int freq;
	bool tracks_exec;		/* the exec tracepoint program runs */
	struct bpf_link *exec_link;
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

static int size_maps(struct profile_bpf *skel, unsigned int max_stacks)
{
	struct bpf_map *maps[] = {
		skel->maps.stacks0, skel->maps.stacks1, skel->maps.counts0, skel->maps.counts1,
	};
	size_t i;
	int err = 0;

	for (i = 0; !err && i < sizeof(maps) / sizeof(maps[0]); i++)
		err = bpf_map__set_max_entries(maps[i], max_stacks);
	return err;
}

/* An array-of-maps whose only use is its update: the kernel waits for an
 * RCU grace period before a map-in-map update returns (so user space knows
 * no program still sees the old inner map), and BPF programs run inside
 * RCU read-side sections. Updating it is our "wait for every running
 * sample program to finish". */
static int create_sync_maps(struct session *s)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);

	s->sync_inner_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bpfprof_sync_in", 4, 4, 1, NULL);
	if (s->sync_inner_fd < 0)
		goto fail;
	opts.inner_map_fd = s->sync_inner_fd;
	s->sync_outer_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "bpfprof_sync", 4, 4, 1, &opts);
	if (s->sync_outer_fd < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "bpfprof: cannot create the drain's sync map: %s\n", strerror(errno));
	return -errno;
}

int session__flip(struct session *s)
{
	__u32 zero = 0, old = s->skel->bss->gen & 1;

	/* the BPF side reads gen once per sample; a plain store is seen at
	 * once (shared mmap), the grace period below orders the rest */
	__atomic_store_n(&s->skel->bss->gen, old ^ 1, __ATOMIC_SEQ_CST);
	if (bpf_map_update_elem(s->sync_outer_fd, &zero, &s->sync_inner_fd, BPF_ANY))
		return -errno;
	return (int)old;
}

/* Opens, configures and loads the skeleton; with_exec says whether the
 * exec tracepoint program is loaded too. */
static int open_and_load(struct session *s, const struct session_opts *opts, bool with_exec)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = opts->btf_path);
	int err;

	s->skel = profile_bpf__open_opts(&open_opts);
	if (!s->skel)
		return -errno;
	s->skel->rodata->filter_tgids = opts->filter_tgids;
	s->skel->rodata->kernel_stacks = opts->sides != SIDES_USER_ONLY;
	s->skel->rodata->user_stacks = opts->sides != SIDES_KERNEL_ONLY;
	err = bpf_program__set_autoload(s->skel->progs.exec, with_exec);
	if (!err)
		err = size_maps(s->skel, opts->max_stacks);
	if (!err)
		err = profile_bpf__load(s->skel);
	if (err) {
		profile_bpf__destroy(s->skel);
		s->skel = NULL;
	}
	return err;
}

int session__load(const struct session_opts *opts, struct session **out)
{
	struct session *s;
	int err;

	err = check_btf(opts->btf_path);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sync_inner_fd = s->sync_outer_fd = -1;
	s->freq = opts->freq;
	/* A kernel without BTF-typed tracepoints (or that refuses them) still
	 * profiles; only samples across an exec lose their image's name. */
	s->tracks_exec = true;
	err = open_and_load(s, opts, true);
	if (err && err != -EPERM && err != -EACCES) {
		s->tracks_exec = false;
		err = open_and_load(s, opts, false);
	}
	if (err) {
		report_load_error(err);
		goto fail;
	}
	err = create_sync_maps(s);
	if (err)
		goto fail;
	*out = s;
	return 0;
fail:
	session__destroy(s);
	return err;
}

bool session__tracks_exec(const struct session *s)
{
	return s->tracks_exec;
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
	if (!err && s->tracks_exec) {
		s->exec_link = bpf_program__attach(s->skel->progs.exec);
		if (!s->exec_link)
			s->tracks_exec = false;	/* degrade, as at load */
	}
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
	bpf_link__destroy(s->exec_link);
	s->exec_link = NULL;
	for (cpu = 0; s->event_fds && cpu < s->ncpus; cpu++) {
		if (s->event_fds[cpu] >= 0)
			close(s->event_fds[cpu]);
		s->event_fds[cpu] = -1;
	}
}

int session__counts_fd(const struct session *s, int gen)
{
	return bpf_map__fd(gen ? s->skel->maps.counts1 : s->skel->maps.counts0);
}

int session__stacks_fd(const struct session *s, int gen)
{
	return bpf_map__fd(gen ? s->skel->maps.stacks1 : s->skel->maps.stacks0);
}

/* Sums the per-CPU values of one slot of a per-CPU array; zeroes it too
 * when asked. */
static int sum_slot(int fd, __u32 slot, bool zero, uint64_t *sum)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, err = 0;
	uint64_t *percpu;

	if (ncpus <= 0)
		return ncpus ? ncpus : -ENODEV;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &slot, percpu))
		err = -errno;
	for (*sum = 0, cpu = 0; !err && cpu < ncpus; cpu++)
		*sum += percpu[cpu];
	if (!err && zero) {
		memset(percpu, 0, ncpus * sizeof(*percpu));
		if (bpf_map_update_elem(fd, &slot, percpu, BPF_ANY))
			err = -errno;
	}
	free(percpu);
	return err;
}

int session__take_stats(const struct session *s, int gen, uint64_t stats[STAT_MAX])
{
	int fd = bpf_map__fd(s->skel->maps.stats), kind, err = 0;

	for (kind = 0; !err && kind < STAT_MAX; kind++)
		err = sum_slot(fd, gen * STAT_MAX + kind, true, &stats[kind]);
	return err;
}

int session__total(const struct session *s, uint64_t *total)
{
	return sum_slot(bpf_map__fd(s->skel->maps.total), 0, false, total);
}

void session__destroy(struct session *s)
{
	if (!s)
		return;
	session__stop(s);
	if (s->sync_outer_fd >= 0)
		close(s->sync_outer_fd);
	if (s->sync_inner_fd >= 0)
		close(s->sync_inner_fd);
	free(s->links);
	free(s->event_fds);
	profile_bpf__destroy(s->skel);
	free(s);
}
