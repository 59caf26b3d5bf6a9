// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The summary of a profile: the short line, -v's lines, advice, JSON. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "base/errors.h"
#include "base/term_safe.h"
#include "output/folded.h"
#include "output/summary.h"
#include "output/summary_tables.h"
#include "profile/aggregate.h"
#include "profile/counters.h"

static size_t count_walked(const struct profile *p)
{
	uint64_t n = 0;

	for (int i = 0; i < UNWIND_STOPS; i++)
		n += p->stats.bpf[unwind_stops[i].stat];
	return (size_t)n;
}

void summary__init(struct summary *s, const struct profile *p, const char *why,
		   const char *dest)
{
	*s = (struct summary){ .p = p, .why = why, .dest = dest, .walked = count_walked(p) };
	s->stacks = folded__distinct(p);
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *offcpu_event(const struct profile *p, uint32_t *idx)
{
	for (int i = 0; i < p->nevents; i++) {
		if (!strcmp(p->events[i].name, "offcpu")) {
			*idx = (uint32_t)i;
			return p->events[i].name;
		}
	}
	return NULL;
}

/* DEST cut to the columns left, "..." where it was cut. */
static void put_dest(const char *dest, size_t cols, char *buf, size_t size)
{
	size_t took;

	if (cols < 8)
		cols = 8;
	took = term_safe__escape(buf, size, dest, cols - 3, NULL);
	if (dest[took] && strlen(buf) + 4 <= size)
		strcat(buf, "...");
}

/* What the run counted: samples, and the time blocked off-CPU (an
 * off-CPU run alone takes no sample: its blocks are its measure). */
static void counted(const struct profile *p, char *buf, size_t size)
{
	const uint64_t *b = p->stats.bpf;
	int n = 0;
	uint32_t i;

	if (!offcpu_event(p, &i) || p->nevents > 1)
		n = snprintf(buf, size, "%" PRIu64 " samples%s", b[STAT_SAMPLES],
			     offcpu_event(p, &i) ? ", " : "");
	if (n >= 0 && (size_t)n < size && offcpu_event(p, &i))
		snprintf(buf + n, size - (size_t)n, "%.2f s off-CPU in %" PRIu64 " block%s",
			 (double)profile__event_total(p, i) / 1e6, b[STAT_OFFCPU_BLOCKS],
			 b[STAT_OFFCPU_BLOCKS] == 1 ? "" : "s");
}

void summary__short(const struct summary *s, char *buf, size_t size)
{
	const struct profile *p = s->p;
	char complete[48] = "", dest[SUMMARY_COLUMNS * 4 + 8] = "", what[96];
	int n;

	if (p->stats.user_stacks)
		snprintf(complete, sizeof(complete), "%.1f%% complete stacks, ",
			 percent(p->stats.user_stacks_complete, p->stats.user_stacks));
	counted(p, what, sizeof(what));
	n = snprintf(buf, size, "%s, %" PRIu64 " lost, %s%.1f%% frames unresolved, "
		     "%.2f s (%s), %zu stack%s", what, profile__lost(p), complete,
		     percent(p->stats.unresolved, p->stats.frames), p->stats.duration, s->why,
		     s->stacks, s->stacks == 1 ? "" : "s");
	if (n < 0 || (size_t)n >= size || !s->dest)
		return;
	/* "bpfprof: " before, " to " between */
	put_dest(s->dest, SUMMARY_COLUMNS > (size_t)n + 13 ? SUMMARY_COLUMNS - (size_t)n - 13 : 0,
		 dest, sizeof(dest));
	snprintf(buf + n, size - (size_t)n, " to %s", dest);
}

/* A line of -v's, printed through line() when it says anything. */
struct out_line {
	char text[1024];
	void (*line)(const char *text, void *arg);
	void *arg;
};

static void emit_line(struct out_line *o)
{
	if (o->text[0])
		o->line(o->text, o->arg);
	o->text[0] = '\0';
}

/* Appends to o's text (cut at its end). */
P_PRINTF(2, 3) static void add(struct out_line *o, const char *fmt, ...)
{
	size_t len = strlen(o->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->text + len, sizeof(o->text) - len, fmt, ap);
	va_end(ap);
}

static void stacks_lines(const struct summary *s, struct out_line *o)
{
	const struct profile *p = s->p;
	const uint64_t *b = p->stats.bpf;

	add(o, "stacks: %zu distinct stacks written (the folded lines; %zu by thread and address), "
	    "%" PRIu64 " stack halves missing", s->stacks, p->nsamples, p->stats.stacks_missing);
	emit_line(o);
	add(o, "lost: %" PRIu64 " samples (", profile__lost(p));
	for (int i = 0; i < LOST_REASONS; i++)
		add(o, "%s%s %" PRIu64, i ? ", " : "", lost_reasons[i].text,
		    b[lost_reasons[i].stat]);
	add(o, "), %" PRIu64 " process tracking records", p->stats.tracking_lost);
	emit_line(o);
}

static void names_line(const struct profile *p, struct out_line *o)
{
	bool any = false;

	add(o, "names: %" PRIu64 "/%" PRIu64 " frames unresolved", p->stats.unresolved,
	    p->stats.frames);
	for (int r = UNNAMED_NONE + 1; r < UNNAMED_MAX; r++) {
		struct summary_reason buf;
		const struct summary_reason *why = summary__unnamed_reason(r, &buf);

		if (!why || !p->stats.unnamed[r])
			continue;
		add(o, "%s%s %" PRIu64, any ? ", " : " (", why->text, p->stats.unnamed[r]);
		any = true;
	}
	if (any)
		add(o, ")");
	emit_line(o);
}

static void unwind_lines(const struct summary *s, struct out_line *o)
{
	if (s->walked) {	/* the ends that happened */
		add(o, "unwind: %zu user stacks walked", s->walked);
		for (int i = 0; i < UNWIND_STOPS_ALL; i++)
			if (s->p->stats.bpf[unwind_stops[i].stat])
				add(o, ", %" PRIu64 " %s", s->p->stats.bpf[unwind_stops[i].stat],
				    unwind_stops[i].text);
		emit_line(o);
	}
}

static void offcpu_line(const struct profile *p, struct out_line *o)
{
	const uint64_t *b = p->stats.bpf;
	uint32_t i;

	if (!offcpu_event(p, &i))
		return;
	add(o, "off-CPU: %" PRIu64 " us in %" PRIu64 " blocks (%" PRIu64 " shorter than "
	    "--min-block, %" PRIu64 " lost; its counts are microseconds)",
	    profile__event_total(p, i), b[STAT_OFFCPU_BLOCKS], b[STAT_OFFCPU_SHORT],
	    b[STAT_OFFCPU_LOST]);
	emit_line(o);
}

/* "; busiest: process PID (COMM), N records in a second": who sent the
 * most tracking records, its comm escaped (its owner names it). */
static void add_flooder(const struct flooder *f, struct out_line *o)
{
	char comm[sizeof(f->comm) * 4 + 1];

	if (!f->pid)
		return;
	term_safe__escape(comm, sizeof(comm), f->comm, sizeof(comm), NULL);
	add(o, "; busiest: process %d (%s), %" PRIu32 " records in a second", (int)f->pid, comm,
	    f->per_sec);
}

/* A warning: records lost are names lost (short-lived processes). */
static void tracking_advice(const struct profile *p, struct out_line *o)
{
	const struct profile_stats *st = &p->stats;

	if (st->tracking_lost) {
		add(o, "%" PRIu64 " process tracking records lost (the kernel's buffers were full)",
		    st->tracking_lost);
		add_flooder(&st->flooder, o);
		add(o, ": short-lived processes may be unnamed");
	}
	emit_line(o);
}

/* -v: records held to a process's budget lose no name (it is read from
 * /proc instead): said there, not warned of at every run beside a
 * process that maps files in a loop. */
static void tracking_line(const struct profile_stats *st, struct out_line *o)
{
	if (!st->tracking_lost && !st->tracking_over_budget)
		return;
	add(o, "tracking: %" PRIu64 " records lost, %" PRIu64 " past a process's budget (%d a "
	    "second: not applied, the process read from /proc instead)", st->tracking_lost,
	    st->tracking_over_budget, TRACK_BUDGET_PER_SEC);
	add_flooder(&st->flooder, o);
	emit_line(o);
}

/* A registered group's line: "label: V text, V text, ..." (counters.h). */
static void counters_line(const struct profile_stats *st, const struct counter_group *g,
			  struct out_line *o)
{
	if (!counter_group__shown(st, g, false))
		return;
	add(o, "%s:", g->label);
	for (size_t i = 0; i < g->n; i++) {
		const struct counter *c = &g->counters[i];
		const char *sep = i ? "," : "";

		if (c->kind == COUNTER_SECONDS)
			add(o, "%s %.2f %s", sep, counter__seconds(st, c), c->text);
		else if (c->kind != COUNTER_FLAG)
			add(o, "%s %" PRIu64 " %s", sep, counter__count(st, c), c->text);
		else if (counter__count(st, c))
			add(o, "%s %s", sep, c->text);
	}
	emit_line(o);
}

void summary__details(const struct summary *s, void (*line)(const char *text, void *arg),
		      void *arg)
{
	struct out_line o = { .line = line, .arg = arg };

	stacks_lines(s, &o);
	names_line(s->p, &o);
	unwind_lines(s, &o);
	offcpu_line(s->p, &o);
	tracking_line(&s->p->stats, &o);
	for (size_t g = 0; g < counters__groups(); g++)
		if (counters__group(g))
			counters_line(&s->p->stats, counters__group(g), &o);
}

/* The reason most unresolved frames have, and what helps with it. */
static const char *unresolved_advice(const struct profile *p)
{
	int top = UNNAMED_NONE;

	for (int r = UNNAMED_NONE + 1; r < UNNAMED_MAX; r++)
		if (p->stats.unnamed[r] > p->stats.unnamed[top])
			top = r;
	switch (top) {
	case UNNAMED_NO_SYMBOL:
		return "most have no symbol: install the programs' debug symbols, or set "
		       "DEBUGINFOD_URLS";
	case UNNAMED_NO_JIT_MAP:
		return "most are JIT code no perf map names: start the runtime with its perf map "
		       "(node --perf-basic-prof; java: jcmd PID Compiler.perfmap)";
	case UNNAMED_NO_KSYMS:
	case UNNAMED_NO_KSYM:
		return "most are kernel addresses: run as root, kernel.kptr_restrict=0";
	default:
		return "bpfprof -v says why (its names: line)";
	}
}

static void loss_advice(const struct profile *p, struct out_line *o)
{
	const uint64_t *b = p->stats.bpf;
	uint64_t full = b[STAT_LOST_STACKMAP_FULL] + b[STAT_LOST_COUNTS_FULL];
	uint64_t transient = b[STAT_LOST_STACKMAP_TRANSIENT] + b[STAT_LOST_COUNTS_TRANSIENT];

	if (full)
		add(o, "%" PRIu64 " samples lost to full maps: raise --max-stacks", full);
	emit_line(o);
	/* not the maps' size: no advice to raise it; said when it is 1% */
	if (transient * 100 > b[STAT_SAMPLES])
		add(o, "%" PRIu64 " samples lost to transient map errors (kernel memory or a busy "
		    "lock, the maps not full)", transient);
	emit_line(o);
	if (p->stats.stacks_missing * 100 > b[STAT_SAMPLES])
		add(o, "%" PRIu64 " stack halves missing (their stacks left the stack map): raise "
		    "--max-stacks", p->stats.stacks_missing);
	emit_line(o);
	tracking_advice(p, o);
}

/* One process's share of the unwind tables spent (unwind/share.h): which
 * limit, which process (its comm escaped: the process chose it). */
static void share_advice(const struct table_stats *t, struct out_line *o)
{
	size_t n = t->over_share_tables + t->over_share_build + t->over_share_rows;
	char comm[sizeof(t->share_comm) * TERM_SAFE_ESC_MAX];

	if (!n || !t->share_limit)
		return;
	term_safe__escape(comm, sizeof(comm), t->share_comm, 64, NULL);
	add(o, "%zu unwind tables refused by processes' shares (new tables a second %zu, build "
	    "time %zu, rows %zu); most to pid %d (%s): %zu, its %s spent (walked by frame "
	    "pointers)", n, t->over_share_tables, t->over_share_build, t->over_share_rows,
	    (int)t->share_pid, comm, t->share_refused, t->share_limit);
	emit_line(o);
}

/* A process past the mappings procs keeps of it (procs.h): the oldest went,
 * the process named, its comm escaped (its owner names it). */
static void mappings_advice(const struct profile_stats *st, struct out_line *o)
{
	char comm[sizeof(st->vmas_forgot_comm) * 4 + 1];

	if (!st->vmas_forgotten)
		return;
	term_safe__escape(comm, sizeof(comm), st->vmas_forgot_comm, sizeof(st->vmas_forgot_comm),
			  NULL);
	add(o, "%zu mappings forgotten past a process's cap of %d (most: process %" PRIu64
	    " (%s)): samples in them before they went may be unnamed", st->vmas_forgotten,
	    PROCS_MAX_VMAS, st->vmas_forgot_pid, comm);
	emit_line(o);
}

static void input_advice(const struct profile *p, struct out_line *o)
{
	const struct profile_stats *st = &p->stats;

	if (st->tables.files_refused)
		add(o, "%zu files' unwind tables did not fit: raise --unwind-rows",
		    st->tables.files_refused);
	emit_line(o);
	share_advice(&st->tables, o);
	if (st->files_dwarf_over)
		add(o, "%" PRIu64 " files named without lines or inline frames: raise --dwarf-mem",
		    st->files_dwarf_over);
	emit_line(o);
	if (st->jit_over_share)
		add(o, "%" PRIu64 " JIT map lines past a process's share of --jit-map-mem (a "
		    "quarter; most: process %" PRIu64 "): raise --jit-map-mem", st->jit_over_share,
		    st->jit_share_spent_by);
	emit_line(o);
	if (st->jit_over_cap)
		add(o, "%" PRIu64 " JIT map lines past --jit-map-mem: raise it", st->jit_over_cap);
	emit_line(o);
	mappings_advice(st, o);
	if (st->debuginfod_spent)
		add(o, "debuginfod lookups were cut short: raise --debuginfod-timeout");
	emit_line(o);
	if (st->cgroups_merged)
		add(o, "%" PRIu64 " samples of cgroups past --max-cgroups carry no cgroup labels: "
		    "raise it", st->cgroups_merged);
	emit_line(o);
}

void summary__advice(const struct summary *s, void (*line)(const char *text, void *arg),
		     void *arg)
{
	const struct profile *p = s->p;
	struct out_line o = { .line = line, .arg = arg };

	loss_advice(p, &o);
	/* a tenth of the frames unnamed, and enough of them to mean it */
	if (p->stats.unresolved >= 20 && p->stats.unresolved * 10 >= p->stats.frames)
		add(&o, "%.1f%% of frames unresolved: %s",
		    percent(p->stats.unresolved, p->stats.frames), unresolved_advice(p));
	emit_line(&o);
	input_advice(p, &o);
}
