// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* flip -> drain -> symbolize -> profile, once per interval (or once); and
 * the run's turn of it: the interval's figures added, the profile written. */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/aggregate.h"
#include "run/collect.h"
#include "run/early_walks.h"
#include "elf/debug_file.h"
#include "elf/debuginfod.h"
#include "sampling/drain.h"
#include "base/errors.h"
#include "files/files.h"
#include "sampling/kmem.h"
#include "symbols/ksyms.h"
#include "output/output.h"
#include "procs/cgroup_paths.h"
#include "procs/procs.h"
#include "symbols/resolve.h"
#include "runtimes/runtimes.h"
#include "run/run_state.h"
#include "run/signals.h"
#include "sampling/session.h"
#include "symbols/symbolizer.h"
#include "procs/tracker.h"
#include "unwind/unwind.h"

struct collector {
	struct session *session;
	struct procs *procs;
	struct symbolizer *sz;
	struct ksyms *ks;
	struct ksyms_loader *ks_loader;	/* reading kallsyms while we sample */
	struct runtimes *rts;		/* NULL: no runtimes' frames */
	struct early_walks *early;	/* NULL: no stacks copied early */
	void (*sampled)(void *arg, const struct drained *d);	/* NULL: none */
	void *sampled_arg;
	struct cgroup_paths *cgroups;	/* names the cgroups samples ran in */
	enum group_by group_by;
	size_t max_cgroups;
	unsigned int labels;
	enum ksyms_use ksyms_use;
	bool warned;
	struct pevent events[MAX_EVENTS];
	int nevents;
	struct symbolizer_skips skips;	/* what was skipped, reported so far */
	struct debuginfod_stats dbgd;	/* debuginfod's counts reported so far */
	uint64_t debug_refused;		/* debug files refused, reported so far */
};

#define KALLSYMS "/proc/kallsyms"
/* A drain's cgroup names: new ones looked up for at most this long (one
 * lookup is ~10 us; the rest are named at the next drain, counted). */
#define CGROUP_NAMING_NS	(100 * 1000000ull)
/* The wall clock moved this much more than the monotonic one: stepped. */
#define SPAN_CLOCK_STEP_NS	(100 * 1000000ll)

/* What the symbolizer skipped during this turn. */
static void skips_part(struct collector *c, struct profile_stats *st)
{
	struct symbolizer_skips now;

	symbolizer__skips(c->sz, &now);
	st->files_over_limit = now.files_over_limit - c->skips.files_over_limit;
	st->files_dwarf_over = now.files_dwarf_over - c->skips.files_dwarf_over;
	st->jit_malformed = now.jit_malformed - c->skips.jit_malformed;
	st->jit_over_cap = now.jit_over_cap - c->skips.jit_over_cap;
	st->jit_over_share = now.jit_over_share - c->skips.jit_over_share;
	st->jit_share_spent_by = now.jit_share_spent_by;
	st->jit_refused = now.jit_refused - c->skips.jit_refused;
	c->skips = now;
}

/* What debuginfod gave during this turn, and the debug files refused. */
static void debuginfod_part(struct collector *c, struct profile_stats *st)
{
	struct debuginfod_stats now;

	debuginfod__stats(&now);
	st->debuginfod = now.enabled;
	st->debuginfod_spent = now.spent;
	st->debuginfod_fetched = now.fetched - c->dbgd.fetched;
	st->debuginfod_failed = now.failed - c->dbgd.failed;
	c->dbgd = now;
	st->debug_refused = debug_file__refused() - c->debug_refused;
	c->debug_refused += st->debug_refused;
}

/* kallsyms read for this collect's kernel addresses, those of d and e,
 * into *ks: 0, with *ks NULL when no sample has a kernel frame (nothing
 * read), or -errno. */
static int ksyms_for(const struct drained *d, const struct drained *e, struct ksyms **ks)
{
	const struct drained *both[] = { d, e };
	uint64_t *addrs;
	size_t n;
	int err = resolve__kernel_addrs(both, 2, &addrs, &n);

	*ks = NULL;
	if (err || !n)
		return err;
	*ks = ksyms__load_for(KALLSYMS, addrs, n);
	err = *ks ? 0 : -errno;
	free(addrs);
	return err;
}

/* Kept, kallsyms is read once: kernel text does not move while we run. */
static void load_ksyms(struct collector *c, const struct drained *d, const struct drained *e)
{
	int err = 0;

	if (c->ks || c->ksyms_use == KSYMS_NONE || c->warned)
		return;
	if (c->ksyms_use == KSYMS_PER_COLLECT)
		err = ksyms_for(d, e, &c->ks);
	else if (c->ks_loader)
		c->ks = ksyms__load_wait(c->ks_loader);
	else
		c->ks = ksyms__load(KALLSYMS);
	if (c->ksyms_use == KSYMS_KEPT && !c->ks)
		err = -errno;
	c->ks_loader = NULL;
	if (err) {
		p_warn("no kernel symbols (/proc/kallsyms: %s)", strerror(-err));
		c->warned = true;
	}
}

/* A table for one collect goes with it. */
static void unload_ksyms(struct collector *c)
{
	if (c->ksyms_use != KSYMS_PER_COLLECT)
		return;
	ksyms__free(c->ks);
	c->ks = NULL;
}

struct collector *collector__new(struct session *s, struct procs *procs, struct files *files,
				 enum ksyms_use ksyms,
				 const struct pevent *events, int nevents,
				 const struct name_sources *names)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nevents = nevents < MAX_EVENTS ? nevents : MAX_EVENTS;
	memcpy(c->events, events, c->nevents * sizeof(*events));
	c->session = s;
	c->procs = procs;
	c->ksyms_use = ksyms;
	c->sz = symbolizer__new(procs, files, names);
	c->cgroups = cgroup_paths__new();
	if (!c->sz || !c->cgroups) {
		symbolizer__free(c->sz);
		cgroup_paths__free(c->cgroups);
		free(c);
		return NULL;
	}
	if (ksyms == KSYMS_KEPT)	/* NULL: load_ksyms reads it itself */
		c->ks_loader = ksyms__load_start(KALLSYMS);
	return c;
}

void collector__free(struct collector *c)
{
	if (!c)
		return;
	symbolizer__free(c->sz);
	cgroup_paths__free(c->cgroups);
	if (c->ks_loader)
		ksyms__free(ksyms__load_wait(c->ks_loader));
	ksyms__free(c->ks);
	free(c);
}

void collector__set_runtimes(struct collector *c, struct runtimes *rts)
{
	c->rts = rts;
}

void collector__set_early(struct collector *c, struct early_walks *early)
{
	c->early = early;
}

void collector__on_drained(struct collector *c, void (*fn)(void *arg, const struct drained *d),
			   void *arg)
{
	c->sampled = fn;
	c->sampled_arg = arg;
}

void collector__set_labels(struct collector *c, unsigned int labels, enum group_by by,
			  size_t max_cgroups)
{
	c->labels = labels;
	c->group_by = by;
	c->max_cgroups = max_cgroups;
}

struct naming {
	struct cgroup_paths *cgroups;
	struct profile *p;
};

/* A cgroup that cannot be named has the path "": no label, counted in
 * each profile it is in; one not named yet (the budget spent) none. */
static int name_cgroup(struct pcgroup *cg, void *arg)
{
	struct naming *n = arg;
	const char *path;
	enum cgroup_naming how;

	if (cg->path)
		return 0;
	how = cgroup_paths__name(n->cgroups, cg->id, cg->tgid, &path);
	if (how == CGROUP_LATER) {
		n->p->stats.cgroups_later++;
		return 0;
	}
	if (how == CGROUP_UNNAMEABLE) {
		n->p->stats.cgroups_unnamed++;
		path = "";
	}
	cg->path = profile__intern(n->p, path);
	return cg->path ? 0 : -ENOMEM;
}

/* The cgroups p's samples ran in, named by their paths while they are
 * still there: within a budget, none once a stop signal waits. */
static int name_cgroups(struct collector *c, struct profile *p)
{
	struct naming n = { c->cgroups, p };
	uint64_t now = procs__now();

	cgroup_paths__new_pass(c->cgroups, signals__stop_pending() ? now : now + CGROUP_NAMING_NS);
	return profile__each_cgroup(p, name_cgroup, &n);
}

/* Generation gen's samples walked in user space into *e (their walks'
 * ends into p's stats); nothing without early walks. */
static int take_early(struct collector *c, int gen, bool last, struct drained *e,
		      struct profile *p)
{
	return c->early ? early_walks__take(c->early, gen, last, e, p->stats.bpf) : 0;
}

int collector__collect(struct collector *c, struct profile **out, struct flip_time *at)
{
	struct profile *p = profile__new();
	struct drained d = { 0 }, e = { 0 };
	int stacks_fds[STACK_CLASSES];
	/* the run's last collect: what is left of the session is read once */
	bool last = session__stopped(c->session);
	uint64_t flipped;
	int gen, err;

	if (!p)
		return -ENOMEM;
	memcpy(p->events, c->events, sizeof(p->events));
	p->nevents = c->nevents;
	p->group_by = c->group_by;
	p->max_cgroups = c->max_cgroups;
	p->labels_off = LABELS_ALL & ~c->labels;
	gen = session__flip(c->session);
	flipped = procs__now();
	*at = (struct flip_time){ .mono_ns = flipped, .wall_ns = run__wall_now() };
	err = gen < 0 ? gen : session__take_stats(c->session, gen, p->stats.bpf);
	if (!err) {
		session__stacks_fds(c->session, gen, stacks_fds);
		err = drain__collect(session__counts_fd(c->session, gen), stacks_fds, last, &d);
	}
	if (err) {
		p_err("cannot read the BPF maps: %s", strerror(-err));
		profile__free(p);
		return err;
	}
	if (c->sampled)
		c->sampled(c->sampled_arg, &d);
	err = take_early(c, gen, last, &e, p);
	load_ksyms(c, &d, &e);
	runtimes__stats(c->rts, &p->stats);	/* reads what the names need first */
	if (!err)
		err = resolve__drained(&d, c->ks, c->sz, c->rts, session__tracks_exec(c->session), p);
	/* the samples walked early go in as the drained ones went */
	if (!err)
		err = resolve__drained(&e, c->ks, c->sz, c->rts, session__tracks_exec(c->session), p);
	unload_ksyms(c);
	if (!err)
		err = name_cgroups(c, p);
	p->stats.stack_ids = d.stack_ids;
	skips_part(c, &p->stats);
	debuginfod_part(c, &p->stats);
	drain__free(&d);
	drain__free(&e);
	/* every sample of a process that exited before the flip is in this
	 * generation or an earlier one: it can go */
	runtimes__trim(c->rts, c->procs);	/* before the reap: it asks procs who exited */
	symbolizer__forget(c->sz, flipped);	/* so does it */
	procs__reap(c->procs, flipped);
	/* what the symbols and the drain freed goes back to the system: a
	 * fleet agent's RSS follows the bounded caches, not the peak (at the
	 * last collect, the exit gives all back) */
	if (!last) {
		symbolizer__trim(c->sz);
		malloc_trim(0);
	}
	if (err) {
		profile__free(p);
		return err;
	}
	*out = p;
	return 0;
}

uint64_t collector__span_ns(uint64_t start_mono_ns, uint64_t start_wall_ns,
			    const struct flip_time *end)
{
	uint64_t mono = end->mono_ns - start_mono_ns;
	int64_t wall = (int64_t)(end->wall_ns - start_wall_ns);

	/* NTP's slewing, at most 500 ppm, is a few ms; a step is more */
	if (wall < 0 || (uint64_t)llabs(wall - (int64_t)mono) > SPAN_CLOCK_STEP_NS + mono / 1000)
		return mono;
	return (uint64_t)wall;
}

/* Fleet mode: what the run holds now (the index line says it every
 * interval). Kernel bytes that cannot be read are left 0 and said once. */
static void take_footprint(struct run *r, struct footprint *f)
{
	struct files_stats fs;
	struct unwind_stats us = { 0 };
	uint64_t maps = 0;
	int err = kmem__read(&maps);

	if (err && !r->kmem_said)
		p_warn("cannot read the BPF maps' kernel memory: %s", strerror(-err));
	r->kmem_said |= err != 0;
	files__stats(r->files, &fs);
	if (r->unwinder)
		unwinder__stats(r->unwinder, &us);
	*f = (struct footprint){
		.set = true, .unwind_rows = us.rows, .unwind_files = us.files,
		.tables_loaded = us.files_loaded, .tables_dropped = us.files_dropped,
		.registry_files = fs.entries, .registry_released = fs.released,
		.kernel_bytes = maps + us.row_bytes, .row_bytes = us.row_bytes,
	};
}

/* The unwinder's tables now, for the summary (JSON, -v). */
static void take_tables(const struct run *r, struct table_stats *t)
{
	struct unwind_stats us;

	if (!r->unwinder)
		return;
	unwinder__stats(r->unwinder, &us);
	*t = (struct table_stats){
		.set = true, .files = us.files, .files_fp = us.files_fp,
		.files_without = us.files_without, .files_over_budget = us.files_over_budget,
		.files_refused = us.files_refused, .files_dropped = us.files_dropped,
		.files_reused = us.files_reused, .files_evicted = us.files_evicted,
		.rows = us.rows, .rows_peak = us.rows_peak, .rows_budget = r->cfg->unwind_rows,
		.procs = us.procs, .asked = us.asked, .build_seconds = us.build_seconds,
		.over_share_tables = us.over_share_tables,
		.over_share_build = us.over_share_build,
		.over_share_rows = us.over_share_rows,
		.share_pid = us.share_pid, .share_limit = us.share_limit,
		.share_refused = us.share_refused, .chunks = us.chunks,
		.chunks_made = us.chunks_made, .graces = us.graces,
	};
	memcpy(t->share_comm, us.share_comm, sizeof(t->share_comm));
}

/* The tracking budget's skips of this interval, its busiest sender. */
static void take_flood(struct run *r, struct profile_stats *st)
{
	struct track_flood f;

	tracker__flood(r->tracker, &f);
	st->tracking_over_budget = f.skipped - r->tracking_skipped;
	r->tracking_skipped = f.skipped;
	st->flooder = (struct flooder){ .pid = f.pid, .per_sec = f.per_sec };
	memcpy(st->flooder.comm, f.comm, sizeof(st->flooder.comm));
	st->flooder.comm[sizeof(st->flooder.comm) - 1] = '\0';
}

/* What procs holds of running processes' mappings, and let go this
 * interval (its reap ran in the collect). */
static void take_mappings(struct run *r, struct profile_stats *st)
{
	struct procs_forgotten f = procs__forgotten(r->procs);
	size_t pruned = procs__pruned(r->procs);

	st->vmas_held = procs__vmas(r->procs);
	st->vmas_forgotten = f.n - r->vmas_forgotten;
	st->vmas_dropped = pruned - f.n - (r->vmas_pruned - r->vmas_forgotten);
	r->vmas_pruned = pruned;
	r->vmas_forgotten = f.n;
	st->vmas_forgot_pid = (uint64_t)f.pid;
	memcpy(st->vmas_forgot_comm, f.comm, sizeof(st->vmas_forgot_comm));
	st->vmas_forgot_comm[sizeof(st->vmas_forgot_comm) - 1] = '\0';
}

/* Sampling stopped before this flip (a signal or the run's end, heard by
 * run/stopper.c while the loop was busy writing): what was sampled ends
 * there, not when the loop came round to drain it. */
static void stopped_end(const struct run *r, struct flip_time *at)
{
	struct flip_time stop;

	if (session__stop_time(r->session, &stop.mono_ns, &stop.wall_ns) &&
	    stop.mono_ns < at->mono_ns && stop.mono_ns >= r->interval_ns)
		*at = stop;
}

int run__collect(struct run *r, struct profile **out)
{
	struct profile *p;
	struct flip_time at;
	uint64_t lost;
	int err;

	tracker__consume(r->tracker);	/* the latest mmaps and exits first */
	err = collector__collect(r->collector, &p, &at);
	if (err)
		return err;
	lost = tracker__lost(r->tracker);
	/* the interval ends at the flip, where the next one begins: files,
	 * pprof, OTLP and push times tile (issue 37: the start was read after
	 * the drain, 0.7 s off either way) */
	stopped_end(r, &at);
	p->stats.duration = collector__span_ns(r->interval_ns, r->interval_wall_ns, &at) / 1e9;
	p->stats.start_wall_ns = r->interval_wall_ns;
	p->stats.freq = r->cfg->freq;
	p->stats.tracking_lost = lost - r->tracking_lost;
	r->tracking_lost = lost;
	take_flood(r, &p->stats);
	take_mappings(r, &p->stats);
	if (r->cfg->interval)
		take_footprint(r, &p->stats.footprint);
	take_tables(r, &p->stats.tables);
	p->stats.main_pid = r->nroots ? r->roots[0] : 0;
	r->interval_ns = at.mono_ns;
	r->interval_wall_ns = at.wall_ns;
	*out = p;
	return 0;
}

int run__write_profile(struct run *r, const char *why)
{
	struct profile *p;
	int err = run__collect(r, &p);

	if (!err && r->so_far) {
		err = profile__merge(r->so_far, p);
		profile__free(p);
		p = r->so_far;
		r->so_far = NULL;
	}
	if (err) {
		profile__free(p);
		return err;
	}
	/* a stop signal came while this interval was drained: it goes into
	 * the final profile, written now, rather than cost a write first */
	if (r->cfg->interval && !r->finishing && signals__stop_pending()) {
		r->so_far = p;
		return 0;
	}
	err = output__profile(r->out, p, why);
	if (!p->stats.bpf[STAT_SAMPLES] && !p->stats.bpf[STAT_OFFCPU_BLOCKS] && !r->cfg->interval)
		p_warn("no samples: the target did not run on a CPU "
			"while profiled");
	profile__free(p);
	return err;
}
