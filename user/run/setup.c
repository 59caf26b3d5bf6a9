// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A run's start: the ids checked, the BPF side loaded, the processes
 * tracked (and their unwind tables, their runtimes), sampling started. */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/aggregate.h"
#include "run/collect.h"
#include "run/early_walks.h"
#include "base/errors.h"
#include "files/files.h"
#include "procs/procs.h"
#include "runtimes/runtimes.h"
#include "run/run_state.h"
#include "sampling/session.h"
#include "run/signals.h"
#include "sampling/drain.h"
#include "procs/tracker.h"
#include "unwind/unwind.h"

/* -p and -t ids are processes and threads that exist now: each is known
 * by its start time too, so a later one reusing its id is not profiled. */
static int start_times(const pid_t *ids, int n, const char *what, uint64_t **starts)
{
	int i;

	*starts = calloc(n ? (size_t)n : 1, sizeof(**starts));
	if (!*starts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (id_start_ticks(ids[i], &(*starts)[i])) {
			p_err("no such %s: %d", what, ids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

int run__check_pids(struct run *r)
{
	int err = start_times(r->cfg->pids, r->cfg->npids, "process", &r->pid_starts);

	return err ? err : start_times(r->cfg->tids, r->cfg->ntids, "thread", &r->tid_starts);
}

/* Every runtime but those the command line turned off. */
static unsigned int runtimes_on(const struct config *cfg)
{
	return ((1u << RUNTIME_MAX) - 1) & ~cfg->names.runtimes_off;
}

/* Fleet mode over the whole machine builds tables for the processes it
 * samples, when it first samples them: at start, every running program's
 * were half its CPU over 10 minutes (a one-shot run, or one of -p and --
 * processes, wants true stacks from the first sample). */
static bool lazy_tables(const struct config *cfg)
{
	return cfg->interval > 0 && !cfg->npids && !cfg->cmd;
}

/* Whether anything the run writes names samples' cgroups: labels, the
 * roots of --group-by, OTLP's container.id. */
static bool needs_cgroups(const struct config *cfg)
{
	return (cfg->labels & LABELS_OF_CGROUP) || cfg->otlp_url || cfg->format == FORMAT_OTLP ||
	       (cfg->group_by != GROUP_NONE && cfg->group_by != GROUP_PID);
}

int run__load(struct run *r)
{
	const struct config *cfg = r->cfg;
	struct session_opts opts = {
		.events = cfg->events, .nevents = cfg->nevents,
		.freq = cfg->freq, .period = cfg->period, .sides = cfg->sides,
		.btf_path = cfg->btf_path, .max_stacks = cfg->max_stacks,
		.filter_tgids = cfg->npids > 0 || cfg->cmd, .follow_forks = cfg->cmd != NULL,
		.npids = cfg->npids, .tids = cfg->tids, .tid_starts = r->tid_starts,
		.ntids = cfg->ntids, .comm = cfg->comm, .cgroup = cfg->cgroup,
		.min_block_us = cfg->min_block_us, .unwind_mode = cfg->call_graph,
		.runtimes_on = runtimes_on(cfg), .lazy_tables = lazy_tables(cfg),
		.no_cgroup_key = !needs_cgroups(cfg),
	};
	uint64_t cmd_start;
	int i, err;

	err = session__load(&opts, &r->session);
	if (!err && cfg->start_disabled)
		err = session__set_enabled(r->session, false);
	for (i = 0; !err && i < cfg->npids; i++)
		err = session__add_tgid(r->session, cfg->pids[i], r->pid_starts[i]);
	if (!err && r->have_cmd) {
		err = id_start_ticks(r->cmd.pid, &cmd_start);
		if (!err)
			err = session__add_tgid(r->session, r->cmd.pid, cmd_start);
	}
	/* -p's processes, or the command: its children join as they fork */
	r->roots = r->have_cmd ? &r->cmd.pid : cfg->pids;
	r->nroots = r->have_cmd ? 1 : cfg->npids;
	return err;
}

/* libc and the dynamic loader are in nearly every process: their tables
 * (the biggest) are built before the first new process needs them. Ours
 * are the system's. */
static int preload_common(struct dl_phdr_info *info, size_t size, void *u)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so") || strstr(info->dlpi_name, "/ld-linux"))
		unwinder__preload(u, info->dlpi_name);
	return 0;
}

/* A process's entry was written, or found not needed: the runtimes are
 * looked for in its mappings, and the stacks copied before it are walked. */
static void proc_synced(void *arg, struct procs *procs, pid_t tgid)
{
	struct run *r = arg;

	runtimes__sync_proc(r->rts, procs, tgid);
	if (r->early)
		early_walks__synced(r->early, tgid);
}

/* Lazy: a held stack's walk needs these mappings' tables (early_walks.h). */
static void want_tables(void *arg, pid_t tgid, const __u64 *addrs, size_t n)
{
	struct run *r = arg;

	unwinder__want(r->unwinder, r->procs, tgid, addrs, n);
}

/* Lazy: the files the drained samples' walks crossed that no copy asked
 * for (a runtime's process is never copied) get their tables. */
static void sampled_tables(void *arg, const struct drained *d)
{
	struct run *r = arg;

	for (size_t i = 0; i < d->n; i++) {
		const struct raw_stack *us = d->recs[i].ustack;

		if (us && us->nr)
			unwinder__sampled(r->unwinder, r->procs, (pid_t)d->recs[i].key.tgid, us->ips,
					  us->nr);
	}
}

/* A runtime's processes are found as the unwinder syncs their mappings. */
static int start_runtimes(struct run *r)
{
	int err;

	r->rts = runtimes__new(r->session, runtimes_on(r->cfg), &err);
	return err;
}

/* How long a file no process maps keeps its entry (symbols, unwind table
 * link; at most 64 such entries, files.c): a program run again within it
 * (a shell loop's commands, each cc1 under make, a server's workers) is
 * not read again. Without it, a fleet agent beside pgbench and a churn
 * loop on a busy machine read symbols 592 times for 23 files in two
 * minutes, 16% of its CPU. */
#define FILES_LINGER_NS		(10ull * 1000000000)

/* The processes already running are read from /proc now: one that exits
 * before the end is then still known. Later ones come from the tracker. */
int run__start_tracking(struct run *r)
{
	bool prompt = false;	/* tracking records read as they come */
	int i, err;

	r->procs = procs__new();
	r->files = files__new(&(struct files_opts){ .inlines = r->cfg->names.inlines,
						    .dwarf_max = r->cfg->names.dwarf_mem,
						    .layout_only = r->cfg->names.addresses_only,
						    .linger_ns = FILES_LINGER_NS });
	if (!r->procs || !r->files)
		return -ENOMEM;
	files__attach(r->files, r->procs);
	if (r->cfg->call_graph != UNWIND_FP) {
		struct unwinder_maps maps = {
			.files_fd = session__unwind_files_fd(r->session),
			.procs_fd = session__unwind_procs_fd(r->session),
			.procs_changes = session__unwind_procs_changes(r->session),
			.exec_fd = session__tracks_exec(r->session) ?
				   session__exec_times_fd(r->session) : -1,
		};

		procs__track_changes(r->procs);
		err = unwinder__new(&maps, r->cfg->call_graph, r->cfg->unwind_rows, r->files,
				    &r->unwinder);
		if (err)
			return err;
		/* the ask is forgotten with its process at exit (task_exit,
		 * attached with the exec stamps): without it, eager */
		if (lazy_tables(r->cfg) && session__tracks_exec(r->session)) {
			struct unwind_asks asks;

			session__unwind_asks(r->session, &asks);
			unwinder__set_lazy(r->unwinder, &asks);
		} else	/* a new process's entry goes in before its samples */
			prompt = true;
		err = start_runtimes(r);
		if (!err && session__early_fd(r->session) >= 0)
			err = early_walks__new(r->session, r->cfg->call_graph, r->procs, &r->early);
		if (err)
			return err;
		unwinder__on_sync(r->unwinder, proc_synced, r);
		if (r->early && lazy_tables(r->cfg))
			early_walks__on_unasked(r->early, want_tables, r);
		if (r->early) {
			unwinder__hold_exited(r->unwinder, early_walks__holds, early_walks__settle,
					      r->early);
			unwinder__on_built(r->unwinder, early_walks__built, r->early);
		}
	}
	/* lazy, an entry waits for a sample's ask, read at the loop's wake-up
	 * (POLL_MS): a wake-up per record bought nothing but its cost (120 a
	 * second under 50 new processes a second, a third of the sampler's
	 * CPU) */
	err = tracker__start(r->procs, prompt, &r->tracker);
	if (err)
		return err;
	if (r->unwinder)
		dl_iterate_phdr(preload_common, r->unwinder);
	if (r->cfg->cmd)
		return 0;
	if (!r->cfg->npids) {
		if (procs__synthesize_all(r->procs) < 0)
			return -errno;
		if (r->unwinder)
			unwinder__sync(r->unwinder, r->procs, NULL, 0);
		return 0;
	}
	for (i = 0; i < r->cfg->npids; i++)
		procs__synthesize(r->procs, r->cfg->pids[i]);
	if (r->unwinder)
		unwinder__sync(r->unwinder, r->procs, r->roots, r->nroots);
	return 0;
}

/* What a sample of ev stands for (struct pevent.period): a clock's
 * period in nanoseconds; a tracepoint or uprobe counts every hit; a
 * counter every -c N, or at -F Hz a period the kernel varies: not known. */
static uint64_t event_period(const struct config *cfg, const struct event *ev)
{
	if (ev->clock)
		return cfg->period ? cfg->period : cfg->freq ? 1000000000ull / cfg->freq : 0;
	if (ev->kind == EVENT_TRACEPOINT || ev->kind == EVENT_UPROBE)
		return 1;
	return cfg->period;
}

/* What each event's counts mean. On-CPU samples profiled with off-CPU
 * time become time too (samples x period), under "oncpu"/"offcpu" roots,
 * so one flame graph weighs both alike. */
static void describe_events(const struct config *cfg, struct pevent *pe)
{
	bool combined = cfg->offcpu && cfg->nevents == 2 && cfg->events[0].clock;
	uint64_t period_us = cfg->period ? cfg->period / 1000 : 1000000 / cfg->freq;
	int i;

	for (i = 0; i < cfg->nevents; i++) {
		const struct event *ev = &cfg->events[i];

		memset(&pe[i], 0, sizeof(pe[i]));
		snprintf(pe[i].name, sizeof(pe[i].name), "%s", ev->name);
		pe[i].unit = ev->kind == EVENT_OFFCPU ? "microseconds" : "count";
		pe[i].kind = ev->kind == EVENT_OFFCPU ? PEVENT_OFFCPU : ev->clock ? PEVENT_CPU :
			     PEVENT_COUNT;
		pe[i].period = event_period(cfg, ev);
		if (combined && ev->kind != EVENT_OFFCPU) {
			snprintf(pe[i].name, sizeof(pe[i].name), "oncpu");
			pe[i].unit = "microseconds";
			pe[i].scale = period_us ? period_us : 1;
		}
	}
}

/* A run that writes once, at its end, reads kallsyms then for what it
 * sampled; one that collects every interval (fleet, top) keeps it all. */
static enum ksyms_use ksyms_use(const struct run *r)
{
	if (r->cfg->sides == SIDES_USER_ONLY)
		return KSYMS_NONE;
	return r->cfg->interval || r->cfg->top ? KSYMS_KEPT : KSYMS_PER_COLLECT;
}

int run__start(struct run *r)
{
	struct pevent events[MAX_EVENTS];
	int err;

	describe_events(r->cfg, events);
	r->collector = collector__new(r->session, r->procs, r->files, ksyms_use(r),
				      events, r->cfg->nevents, &r->cfg->names);
	if (!r->collector)
		return -ENOMEM;
	collector__set_runtimes(r->collector, r->rts);
	collector__set_early(r->collector, r->early);
	if (r->unwinder && lazy_tables(r->cfg))
		collector__on_drained(r->collector, sampled_tables, r);
	collector__set_labels(r->collector, r->cfg->labels, r->cfg->group_by, r->cfg->max_cgroups);
	if (r->unwinder && r->have_cmd)
		run__preload_command(r);
	err = session__start(r->session);
	if (!err && r->have_cmd)
		err = run__release_command(r);
	if (!err) {
		r->start_ns = r->interval_ns = procs__now();
		r->interval_wall_ns = run__wall_now();
		signals__abort_kills(r->have_cmd ? r->cmd.pid : 0);
		progress__start_line(r->cfg, r->have_cmd ? r->cmd.pid : 0);
		progress__init(&r->progress, r->cfg, r->start_ns);
	}
	return err;
}
