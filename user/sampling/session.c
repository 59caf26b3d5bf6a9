// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Owns the BPF objects of a run: the skeleton, the perf events, the links. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/errors.h"
#include "base/map_keys.h"
#include "base/runtime.h"

#include "sampling/attach.h"
#include "sampling/events.h"
#include "sampling/session.h"
#include "profile.skel.h"

struct session {
	struct profile_bpf *skel;
	int sync_inner_fd, sync_outer_fd;	/* see session__flip() */
	const struct event *events;
	int nevents;
	unsigned int freq;
	unsigned long long period;
	bool follow_forks;
	bool tracks_exec;		/* the exec tracepoint program runs */
	struct attachments *_Atomic attached;	/* stopped from either thread, once */
	_Atomic uint64_t stop_mono_ns, stop_wall_ns;	/* when; 0 before */
};

static const char *bpf_strerror(int err, char *buf, size_t size)
{
	if (libbpf_strerror(err, buf, size))	/* libbpf's own codes, beyond errno's */
		snprintf(buf, size, "%s", strerror(-err));
	return buf;
}

/* The kernel's BTF (or --btf's) is what a failed load checks first: CO-RE
 * programs cannot be relocated without it, and libbpf's own message for
 * that case is many lines deep in its log. */
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
			p_err("cannot read BTF from %s: %s", path, bpf_strerror(err, msg, sizeof(msg)));
		else
			p_err("kernel BTF not available (/sys/kernel/btf/vmlinux: %s); a kernel built "
			      "with CONFIG_DEBUG_INFO_BTF=y is needed, or --btf PATH",
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
		p_err("permission denied loading BPF programs: run as root (or with CAP_BPF and "
		      "CAP_PERFMON)");
	else
		p_err("failed to load BPF programs: %s (run with -vv for libbpf's log)",
		      bpf_strerror(err, msg, sizeof(msg)));
}

static bool has_kind(const struct session_opts *opts, enum event_kind a, enum event_kind b)
{
	for (int i = 0; i < opts->nevents; i++)
		if (opts->events[i].kind == a || opts->events[i].kind == b)
			return true;
	return false;
}

/* Runtime id is on: asked for, and its walker has what it needs. */
static bool runtime_on(const struct session_opts *opts, int id)
{
	return (opts->runtimes_on & 1u << id) &&
	       !(runtime_rows[id]->needs_tables && opts->unwind_mode == UNWIND_FP);
}

/* The runtimes' walkers' maps, by their rows (base/runtime.h): their
 * entries when on, one when off. */
static int size_runtime_maps(struct profile_bpf *skel, const struct session_opts *opts)
{
	for (int id = 0; id < RUNTIME_MAX; id++) {
		const struct runtime_map *m = runtime_rows[id]->maps;
		bool on = runtime_on(opts, id);

		for (; m && m->name; m++) {
			struct bpf_map *map = bpf_object__find_map_by_name(skel->obj, m->name);
			int err = map ? bpf_map__set_max_entries(map, on ? m->entries : 1) : -ENOENT;

			if (err)
				return err;
		}
	}
	return 0;
}

/* The unwinder's maps shrink to one entry when it is not used (its rows
 * are maps of their own, made as files are loaded); so does off-CPU's map
 * of blocked threads. */
static int size_maps(struct profile_bpf *skel, const struct session_opts *opts)
{
	bool offcpu = has_kind(opts, EVENT_OFFCPU, EVENT_OFFCPU);
	bool tables = opts->unwind_mode != UNWIND_FP;
	struct { struct bpf_map *map; unsigned int n; } maps[] = {
		{ skel->maps.stacks0_s, opts->max_stacks }, { skel->maps.stacks1_s, opts->max_stacks },
		{ skel->maps.stacks0_m, opts->max_stacks }, { skel->maps.stacks1_m, opts->max_stacks },
		{ skel->maps.stacks0_l, opts->max_stacks }, { skel->maps.stacks1_l, opts->max_stacks },
		{ skel->maps.counts0, opts->max_stacks }, { skel->maps.counts1, opts->max_stacks },
		{ skel->maps.unwind_files, tables ? MAX_UNWIND_CHUNKS : 1 },
		{ skel->maps.unwind_procs, tables ? MAX_UNWIND_PROCS : 1 },
		{ skel->maps.unwind_asks, opts->lazy_tables ? UNWIND_ASK_QUEUE : 1 },
		/* a ring's size is a power of 2 pages */
		{ skel->maps.early, early_stacks(opts) ? EARLY_RING_BYTES : 4096 },
		{ skel->maps.blocked, offcpu ? MAX_OFFCPU_THREADS : 1 },
		/* room for every id listed (children of a command join later) */
		{ skel->maps.tgids, opts->npids > MAX_FILTER_PIDS ? (unsigned int)opts->npids
								 : MAX_FILTER_PIDS },
		{ skel->maps.tids, opts->ntids > MAX_FILTER_PIDS ? (unsigned int)opts->ntids
								 : MAX_FILTER_PIDS },
	};
	size_t i;
	int err = 0;

	for (i = 0; !err && i < sizeof(maps) / sizeof(maps[0]); i++)
		err = bpf_map__set_max_entries(maps[i].map, maps[i].n);
	return err ? err : size_runtime_maps(skel, opts);
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
	p_err("cannot create the drain's sync map: %s", strerror(errno));
	return -errno;
}

int session__flip(struct session *s)
{
	__u32 zero = 0, now = s->skel->bss->gen;

	/* the BPF side reads gen once per sample; a plain store is seen at
	 * once (shared mmap), the grace period below orders the rest. A
	 * count, not a bit: its value is the stored-stack hints' epoch */
	__atomic_store_n(&s->skel->bss->gen, now + 1, __ATOMIC_SEQ_CST);
	if (bpf_map_update_elem(s->sync_outer_fd, &zero, &s->sync_inner_fd, BPF_ANY))
		return -errno;
	return (int)(now & 1);
}

/* Off-CPU blocks that began before a disable would count the time spent
 * disabled when they end: they are forgotten (none begins while disabled). */
static int forget_blocked(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.blocked), err;
	__u32 *keys;
	size_t n = map_u32_keys(fd, &keys, &err), i;

	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &keys[i]);	/* gone since: fine */
	free(keys);
	return err;
}

int session__set_enabled(struct session *s, bool on)
{
	__u32 zero = 0;

	__atomic_store_n(&s->skel->bss->disabled, on ? 0 : 1, __ATOMIC_SEQ_CST);
	/* as in session__flip: when this returns, no program that read the
	 * old value is still counting */
	if (bpf_map_update_elem(s->sync_outer_fd, &zero, &s->sync_inner_fd, BPF_ANY))
		return -errno;
	return on ? 0 : forget_blocked(s);
}

/* --cgroup: the cgroup v2 directory, checked and put in the map the BPF
 * side tests with bpf_current_task_under_cgroup() (the cgroup or below). */
static int set_cgroup(struct session *s, const char *path)
{
	__u32 zero = 0;
	struct statfs sfs;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sfs))
		err = -errno;
	else if (sfs.f_type != CGROUP2_SUPER_MAGIC)
		err = -ENOTDIR;
	else if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.cgroup), &zero, &fd, BPF_ANY))
		err = -errno;
	if (err)
		p_err("cannot use cgroup %s: %s", path,
		      err == -ENOTDIR ? "not a cgroup v2 directory" : strerror(-err));
	if (fd >= 0)
		close(fd);
	return err;
}

static int set_filters(struct session *s, const struct session_opts *opts)
{
	int i;

	for (i = 0; i < opts->ntids; i++) {
		__u32 tid = (__u32)opts->tids[i];
		__u64 start = opts->tid_starts[i];

		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.tids), &tid, &start, BPF_ANY)) {
			p_err("cannot filter on thread %d: %s", opts->tids[i], strerror(errno));
			return -errno;
		}
	}
	return opts->cgroup ? set_cgroup(s, opts->cgroup) : 0;
}

static void configure(struct profile_bpf__rodata *ro, const struct session_opts *opts)
{
	int i;

	ro->filter_tgids = opts->filter_tgids;
	ro->filter_tids = opts->ntids > 0;
	ro->filter_cgroup = opts->cgroup != NULL;
	ro->key_cgroup = !opts->no_cgroup_key;
	ro->follow_forks = opts->follow_forks;
	ro->kernel_stacks = opts->sides != SIDES_USER_ONLY;
	ro->user_stacks = opts->sides != SIDES_KERNEL_ONLY;
	for (i = 0; i < RUNTIME_MAX; i++)
		ro->runtimes_on |= runtime_on(opts, i) ? 1u << i : 0;
	ro->unwind_mode = opts->unwind_mode;
	ro->lazy_tables = opts->lazy_tables && opts->unwind_mode != UNWIND_FP;
	ro->ask_queue = ro->lazy_tables && !has_kind(opts, EVENT_HARDWARE, EVENT_HARDWARE);
	ro->early_stacks = early_stacks(opts);
	ro->min_block_ns = (__u64)opts->min_block_us * 1000;
	ro->tick_ns = 1000000000ull / (__u64)sysconf(_SC_CLK_TCK);
	if (opts->comm) {
		ro->filter_comm = true;
		strncpy((char *)ro->comm_filter, opts->comm, TASK_COMM_LEN - 1);
	}
	for (i = 0; i < opts->nevents; i++)
		if (opts->events[i].kind == EVENT_OFFCPU)
			ro->offcpu_event = (__u32)i;
}

/* Only the programs this run needs are loaded: a kernel that lacks what
 * one of the others needs (BTF tracepoints, uprobes) still runs the rest. */
static int choose_programs(struct profile_bpf *skel, const struct session_opts *opts,
			   bool with_exec)
{
	struct { struct bpf_program *prog; bool on; } progs[] = {
		{ skel->progs.sample, has_kind(opts, EVENT_SOFTWARE, EVENT_HARDWARE) },
		{ skel->progs.sample_tp, has_kind(opts, EVENT_TRACEPOINT, EVENT_TRACEPOINT) },
		{ skel->progs.sample_uprobe, has_kind(opts, EVENT_UPROBE, EVENT_UPROBE) },
		{ skel->progs.offcpu, has_kind(opts, EVENT_OFFCPU, EVENT_OFFCPU) },
		{ skel->progs.follow, opts->follow_forks },
		{ skel->progs.task_exit, opts->follow_forks || with_exec },
		{ skel->progs.exec, with_exec },
	};
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(progs) / sizeof(progs[0]); i++)
		err = bpf_program__set_autoload(progs[i].prog, progs[i].on);
	return err;
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
	configure(s->skel->rodata, opts);
	err = choose_programs(s->skel, opts, with_exec);
	if (!err)
		err = size_maps(s->skel, opts);
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

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sync_inner_fd = s->sync_outer_fd = -1;
	s->freq = opts->freq;
	s->period = opts->period;
	s->events = opts->events;
	s->nevents = opts->nevents;
	s->follow_forks = opts->follow_forks;
	/* A kernel without BTF-typed tracepoints (or that refuses them) still
	 * profiles; only samples across an exec lose their image's name. */
	s->tracks_exec = true;
	/* a --btf file is the user's: a bad one is said before any load */
	err = opts->btf_path ? check_btf(opts->btf_path) : 0;
	if (err)
		goto fail;
	err = open_and_load(s, opts, true);
	if (err && err != -EPERM && err != -EACCES) {
		s->tracks_exec = false;
		err = open_and_load(s, opts, false);
	}
	/* the kernel's BTF is read (5 MiB, 20-40 ms here) once, by libbpf's
	 * load: checked apart only to say why a load failed */
	if (err && (opts->btf_path || !check_btf(NULL)))
		report_load_error(err);
	if (err)
		goto fail;
	err = create_sync_maps(s);
	if (!err)
		err = set_filters(s, opts);
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

int session__add_tgid(struct session *s, pid_t tgid, uint64_t start_ticks)
{
	__u32 key = (__u32)tgid;
	__u64 start = start_ticks;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.tgids), &key, &start, BPF_ANY)) {
		p_err("cannot filter on process %d: %s", tgid, strerror(errno));
		return -errno;
	}
	return 0;
}

/* One program attached, its link kept. Returns 0 or -errno. */
static int attach_one(struct session *s, struct bpf_program *prog)
{
	struct bpf_link *link = bpf_program__attach(prog);

	if (!link || attach__link(s->attached, link))
		return errno ? -errno : -EINVAL;
	return 0;
}

/* Helper programs: following forks, stamping execs, and at a task's end
 * forgetting it (tgids, exec times, Python's maps). Without the last, exec
 * stamps are not taken either: their map would only fill. */
static int attach_helpers(struct session *s)
{
	int err = 0;

	if (s->follow_forks || s->tracks_exec)
		err = attach_one(s, s->skel->progs.task_exit);
	if (!err && s->follow_forks)
		err = attach_one(s, s->skel->progs.follow);
	if (err && s->follow_forks) {
		p_err("cannot follow the command's children: %s", strerror(-err));
		return err;
	}
	if (err || (s->tracks_exec && attach_one(s, s->skel->progs.exec)))
		s->tracks_exec = false;	/* degrade, as at load */
	return 0;
}

int session__start(struct session *s)
{
	struct attach_progs progs = {
		.perf = s->skel->progs.sample,
		.tp = s->skel->progs.sample_tp,
		.uprobe = s->skel->progs.sample_uprobe,
		.offcpu = s->skel->progs.offcpu,
	};
	struct attachments *a = NULL;
	int err = attach__events(&progs, s->events, s->nevents, s->freq, s->period, &a);

	atomic_store(&s->attached, a);
	if (!err)
		err = attach_helpers(s);
	if (err)
		session__stop(s);
	return err;
}

void session__stop(struct session *s)
{
	struct attachments *a = atomic_exchange(&s->attached, NULL);
	struct timespec wall, mono;

	if (!a)
		return;
	attach__free(a);
	clock_gettime(CLOCK_REALTIME, &wall);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	atomic_store(&s->stop_wall_ns, (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec);
	atomic_store(&s->stop_mono_ns, (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec);
}

bool session__stopped(const struct session *s)
{
	return atomic_load(&s->attached) == NULL;
}

bool session__stop_time(const struct session *s, uint64_t *mono_ns, uint64_t *wall_ns)
{
	*wall_ns = atomic_load(&s->stop_wall_ns);
	return (*mono_ns = atomic_load(&s->stop_mono_ns)) != 0;
}

int session__counts_fd(const struct session *s, int gen)
{
	return bpf_map__fd(gen ? s->skel->maps.counts1 : s->skel->maps.counts0);
}

void session__stacks_fds(const struct session *s, int gen, int fds[STACK_CLASSES])
{
	const struct profile_bpf *k = s->skel;

	fds[0] = bpf_map__fd(gen ? k->maps.stacks1_s : k->maps.stacks0_s);
	fds[1] = bpf_map__fd(gen ? k->maps.stacks1_m : k->maps.stacks0_m);
	fds[2] = bpf_map__fd(gen ? k->maps.stacks1_l : k->maps.stacks0_l);
}

int session__unwind_files_fd(const struct session *s)
{
	return bpf_map__fd(s->skel->maps.unwind_files);
}

int session__unwind_procs_fd(const struct session *s)
{
	return bpf_map__fd(s->skel->maps.unwind_procs);
}

volatile __u64 *session__unwind_procs_changes(const struct session *s)
{
	return (volatile __u64 *)&s->skel->bss->unwind_procs_changes;
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

int session__total(const struct session *s, enum total_kind kind, uint64_t *total)
{
	return sum_slot(bpf_map__fd(s->skel->maps.total), kind, false, total);
}

int session__peek_lost(const struct session *s, uint64_t *lost)
{
	static const int kinds[] = { STAT_LOST_STACKMAP_FULL, STAT_LOST_STACKMAP_TRANSIENT,
				     STAT_LOST_STACK_ERROR, STAT_LOST_COUNTS_FULL,
				     STAT_LOST_COUNTS_TRANSIENT, STAT_OFFCPU_LOST };
	int fd = bpf_map__fd(s->skel->maps.stats), err = 0, i;
	__u32 gen = __atomic_load_n(&s->skel->bss->gen, __ATOMIC_RELAXED) & 1;
	uint64_t n;

	*lost = 0;
	for (i = 0; !err && i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++) {
		err = sum_slot(fd, gen * STAT_MAX + kinds[i], false, &n);
		*lost += n;
	}
	return err;
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
	profile_bpf__destroy(s->skel);
	free(s);
}

int session__early_fd(const struct session *s)
{
	return s->skel->rodata->early_stacks ? bpf_map__fd(s->skel->maps.early) : -1;
}

int session__exec_ranges_fd(const struct session *s)
{
	return bpf_map__fd(s->skel->maps.exec_ranges);
}

int session__exec_times_fd(const struct session *s)
{
	return bpf_map__fd(s->skel->maps.exec_times);
}

void session__unwind_asks(const struct session *s, struct unwind_asks *out)
{
	*out = (struct unwind_asks){
		.wanted_fd = bpf_map__fd(s->skel->maps.unwind_wanted),
		.queue_fd = bpf_map__fd(s->skel->maps.unwind_asks),
		.asked = (const volatile uint64_t *)&s->skel->bss->unwind_asked,
		.lost = (const volatile uint64_t *)&s->skel->bss->unwind_asks_lost,
	};
}

int session__map_fd(const struct session *s, const char *name)
{
	return bpf_object__find_map_fd_by_name(s->skel->obj, name);
}

/* The .bss section's variable name, in the skeleton's shared mapping of
 * it: found by the section's BTF (its variables and their offsets). */
volatile void *session__bss_var(const struct session *s, const char *name)
{
	const struct btf *btf = bpf_object__btf(s->skel->obj);
	const struct btf_var_secinfo *v;
	const struct btf_type *sec;
	__s32 id = btf ? btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC) : -1;

	if (id < 0)
		return NULL;
	sec = btf__type_by_id(btf, (__u32)id);
	v = btf_var_secinfos(sec);
	for (__u16 i = 0; i < btf_vlen(sec); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);

		if (var && !strcmp(btf__name_by_offset(btf, var->name_off), name))
			return (volatile char *)s->skel->bss + v->offset;
	}
	return NULL;
}
