// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The summary as JSON: every count, for scripts and the fleet's log. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/dirfiles.h"
#include "base/errors.h"
#include "base/runtime.h"
#include "base/term_safe.h"
#include "output/summary.h"
#include "output/summary_tables.h"
#include "profile/aggregate.h"
#include "profile/counters.h"

/* Why samples were lost, for people and as JSON keys: full (the map at
 * --max-stacks) apart from transient (an insert failed in a map with room). */
const struct summary_stop lost_reasons[LOST_REASONS] = {
	{ STAT_LOST_STACKMAP_FULL, "stack map full", "stack_map_full" },
	{ STAT_LOST_STACKMAP_TRANSIENT, "stack map busy or out of kernel memory",
	  "stack_map_transient" },
	{ STAT_LOST_STACK_ERROR, "stack error", "stack_error" },
	{ STAT_LOST_COUNTS_FULL, "counts map full", "counts_map_full" },
	{ STAT_LOST_COUNTS_TRANSIENT, "counts map busy or out of kernel memory",
	  "counts_map_transient" },
};

/* Why frames stayed unnamed, for people and as JSON keys. */
static const struct summary_reason unnamed_reasons[UNNAMED_RUNTIME] = {
	[UNNAMED_NO_MAPPING] = { "no mapping", "no_mapping" },
	[UNNAMED_NO_JIT_MAP] = { "anonymous, no JIT map entry", "no_jit_map" },
	[UNNAMED_NO_FILE] = { "no file", "no_file" },
	[UNNAMED_UNREADABLE] = { "file unreadable", "file_unreadable" },
	[UNNAMED_NOT_ELF] = { "not ELF", "not_elf" },
	[UNNAMED_OVER_LIMIT] = { "file over size limits", "over_size_limits" },
	[UNNAMED_NO_SYMBOL] = { "no symbol", "no_symbol" },
	[UNNAMED_NO_KSYMS] = { "no kallsyms", "no_kallsyms" },
	[UNNAMED_NO_KSYM] = { "no kernel symbol", "no_kernel_symbol" },
};

const struct summary_reason *summary__unnamed_reason(int why, struct summary_reason *buf)
{
	const struct runtime_ops *rt;

	if (why > UNNAMED_NONE && why < UNNAMED_RUNTIME)
		return &unnamed_reasons[why];
	if (why < UNNAMED_RUNTIME || why >= UNNAMED_MAX)
		return NULL;
	rt = runtime_rows[why - UNNAMED_RUNTIME];
	if (!rt->unnamed_key)
		return NULL;
	*buf = (struct summary_reason){ rt->unnamed_text, rt->unnamed_key };
	return buf;
}

/* How user stacks ended (auto, dwarf): the stops, one per stack walked. */
const struct summary_stop unwind_stops[UNWIND_STOPS_ALL] = {
	/* "complete" is not this: only a thread's or the process's entry
	 * (counters' stacks.complete) */
	{ STAT_UNWIND_END, "ended with no caller", "no_caller" },
	{ STAT_UNWIND_NO_RULE, "stopped without a rule", "no_rule" },
	{ STAT_UNWIND_NO_MAPPING, "outside known files", "outside_known_files" },
	{ STAT_UNWIND_READ_FAULT, "read faults", "read_faults" },
	{ STAT_UNWIND_DEPTH, "at max depth", "max_depth" },
	{ STAT_UNWIND_BAD_ADDRESS, "at a non-user return address", "bad_return_address" },
	{ STAT_UNWIND_IMPLAUSIBLE, "at an implausible frame", "implausible_frame" },
	{ STAT_UNWIND_FP_FALLBACK, "by frame pointers (no tables yet)", "fp_no_tables_yet" },
	/* not stops: stacks that crossed such a place */
	{ STAT_UNWIND_NOT_LOADED, "through files whose tables did not fit", "through_tables_not_fit" },
	{ STAT_UNWIND_PENDING, "through files whose tables were being built",
	  "through_tables_being_built" },
	{ STAT_UNWIND_FP_STEPS, "with frame-pointer steps where no CFI covered", "fp_steps" },
	{ STAT_UNWIND_DEFERRED, "walked from a copy of the stack taken before their tables",
	  "from_early_copies" },
};


/* A JSON object being written: members separated by commas. */
struct jw {
	FILE *f;
	bool first;	/* no member yet at this level */
};

void summary__json_string(const char *s, FILE *out)
{
	uint32_t cp;
	size_t n;

	fputc('"', out);
	for (; *s; s += n ? n : 1) {
		n = term_safe__utf8(s, &cp);
		if (n > 1 || (n == 1 && cp >= 0x20 && cp != '"' && cp != '\\' && cp != 0x7f))
			fwrite(s, 1, n, out);
		else if (n == 1 && (cp == '"' || cp == '\\'))
			fprintf(out, "\\%c", (char)cp);
		else	/* a control byte, or a byte of invalid UTF-8 */
			fprintf(out, "\\u%04x", (unsigned char)*s);
	}
	fputc('"', out);
}

static void j_key(struct jw *j, const char *key)
{
	fprintf(j->f, "%s\"%s\":", j->first ? "" : ",", key);
	j->first = false;
}

static void j_u64(struct jw *j, const char *key, uint64_t v)
{
	j_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

static void j_num(struct jw *j, const char *key, double v)
{
	j_key(j, key);
	fprintf(j->f, "%.3f", v);
}

static void j_bool(struct jw *j, const char *key, bool v)
{
	j_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

static void j_str(struct jw *j, const char *key, const char *s)
{
	j_key(j, key);
	if (s)
		summary__json_string(s, j->f);
	else
		fputs("null", j->f);
}

static void j_open(struct jw *j, const char *key)
{
	j_key(j, key);
	fputc('{', j->f);
	j->first = true;
}

static void j_close(struct jw *j)
{
	fputc('}', j->f);
	j->first = false;
}

/* The busiest sender of tracking records, or null. */
static void json_flooder(const struct flooder *f, struct jw *j)
{
	char comm[sizeof(f->comm) + 1];

	if (!f->pid) {
		j_key(j, "tracking_busiest");
		fputs("null", j->f);
		return;
	}
	j_open(j, "tracking_busiest");
	j_u64(j, "pid", (uint64_t)f->pid);
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(f->comm), f->comm);
	j_str(j, "comm", comm);
	j_u64(j, "records_in_a_second", f->per_sec);
	j_close(j);
}

static void json_counts(const struct summary *s, struct jw *j)
{
	const struct profile *p = s->p;
	const uint64_t *b = p->stats.bpf;

	/* when it ran, ns since the epoch: when a signal was heard is the
	 * end's time, whatever the write after it cost */
	j_u64(j, "start_ns", p->stats.start_wall_ns);
	j_u64(j, "end_ns", profile_stats__end_wall_ns(&p->stats));
	j_u64(j, "samples", b[STAT_SAMPLES]);
	j_u64(j, "counted", profile__total(p));
	j_u64(j, "lost", profile__lost(p));
	j_u64(j, "stacks", s->stacks);
	j_num(j, "duration_s", p->stats.duration);
	j_str(j, "stopped", s->why);
	j_str(j, "output", s->dest);
	j_open(j, "lost_by_reason");
	for (int i = 0; i < LOST_REASONS; i++)
		j_u64(j, lost_reasons[i].key, b[lost_reasons[i].stat]);
	j_close(j);
	j_u64(j, "stacks_by_thread_and_address", p->nsamples);
	j_u64(j, "stack_halves_missing", p->stats.stacks_missing);
	j_u64(j, "tracking_records_lost", p->stats.tracking_lost);
	j_u64(j, "tracking_records_over_budget", p->stats.tracking_over_budget);
	json_flooder(&p->stats.flooder, j);
	j_u64(j, "frames", p->stats.frames);
	j_u64(j, "frames_unresolved", p->stats.unresolved);
	j_open(j, "unresolved_by_reason");
	for (int r = UNNAMED_NONE + 1; r < UNNAMED_MAX; r++) {
		struct summary_reason buf;
		const struct summary_reason *why = summary__unnamed_reason(r, &buf);

		if (why)
			j_u64(j, why->key, p->stats.unnamed[r]);
	}
	j_close(j);
}

static void json_unwind(const struct summary *s, struct jw *j)
{
	j_open(j, "unwind");
	j_u64(j, "walked", s->walked);
	for (int i = 0; i < UNWIND_STOPS_ALL; i++)
		j_u64(j, unwind_stops[i].key, s->p->stats.bpf[unwind_stops[i].stat]);
	j_close(j);
}

static void json_offcpu(const struct profile *p, struct jw *j)
{
	const uint64_t *b = p->stats.bpf;

	for (int i = 0; i < p->nevents; i++) {
		if (strcmp(p->events[i].name, "offcpu"))
			continue;
		j_open(j, "offcpu");
		j_u64(j, "us", profile__event_total(p, (uint32_t)i));
		j_u64(j, "blocks", b[STAT_OFFCPU_BLOCKS]);
		j_u64(j, "shorter_than_min_block", b[STAT_OFFCPU_SHORT]);
		j_u64(j, "lost", b[STAT_OFFCPU_LOST]);
		j_close(j);
	}
}

/* The registered counters, an object per group (counters.h). */
static void json_counters(const struct profile_stats *st, struct jw *j)
{
	for (size_t g = 0; g < counters__groups(); g++) {
		const struct counter_group *grp = counters__group(g);

		if (!grp || !counter_group__shown(st, grp, true))
			continue;
		j_open(j, grp->key);
		for (size_t i = 0; i < grp->n; i++) {
			const struct counter *c = &grp->counters[i];

			if (c->kind == COUNTER_SECONDS)
				j_num(j, c->key, counter__seconds(st, c));
			else if (c->kind == COUNTER_FLAG)
				j_bool(j, c->key, counter__count(st, c));
			else
				j_u64(j, c->key, counter__count(st, c));
		}
		j_close(j);
	}
}

static void json_advice_line(const char *text, void *arg)
{
	struct jw *j = arg;

	if (!j->first)
		fputc(',', j->f);
	j->first = false;
	summary__json_string(text, j->f);
}

int summary__json_members(const struct summary *s, FILE *out)
{
	struct jw j = { .f = out, .first = true };

	json_counts(s, &j);
	json_unwind(s, &j);
	json_offcpu(s->p, &j);
	json_counters(&s->p->stats, &j);
	j_key(&j, "advice");
	fputc('[', out);
	j.first = true;
	summary__advice(s, json_advice_line, &j);
	fputc(']', out);
	return ferror(out) ? -EIO : 0;
}

int summary__json_file(const struct summary *s, const char *path)
{
	struct atomic_file af;
	int err = atomic_file__open(&af, path, 0644);

	if (!err) {
		fputc('{', af.f);
		err = summary__json_members(s, af.f);
		fputs("}\n", af.f);
		if (!err && ferror(af.f))
			err = -EIO;
		if (err)
			atomic_file__discard(&af);
		else
			err = atomic_file__commit(&af);
	}
	if (err)
		p_err("cannot write --stats %s: %s", path, dirfiles__strerror(err));
	return err;
}
