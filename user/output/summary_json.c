// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The summary as JSON: every count, for scripts and the fleet's log. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/dirfiles.h"
#include "base/errors.h"
#include "base/term_safe.h"
#include "output/summary.h"
#include "output/summary_tables.h"
#include "profile/aggregate.h"

/* Why frames stayed unnamed, for people and as JSON keys. */
const struct summary_reason unnamed_reasons[UNNAMED_MAX] = {
	[UNNAMED_NO_MAPPING] = { "no mapping", "no_mapping" },
	[UNNAMED_NO_JIT_MAP] = { "anonymous, no JIT map entry", "no_jit_map" },
	[UNNAMED_NO_FILE] = { "no file", "no_file" },
	[UNNAMED_UNREADABLE] = { "file unreadable", "file_unreadable" },
	[UNNAMED_NOT_ELF] = { "not ELF", "not_elf" },
	[UNNAMED_OVER_LIMIT] = { "file over size limits", "over_size_limits" },
	[UNNAMED_NO_SYMBOL] = { "no symbol", "no_symbol" },
	[UNNAMED_NO_KSYMS] = { "no kallsyms", "no_kallsyms" },
	[UNNAMED_NO_KSYM] = { "no kernel symbol", "no_kernel_symbol" },
	[UNNAMED_PY_CODE] = { "Python code object not read", "python_code_not_read" },
};

/* How user stacks ended (auto, dwarf): the stops, one per stack walked. */
const struct summary_stop unwind_stops[UNWIND_STOPS_ALL] = {
	{ STAT_UNWIND_END, "complete", "complete" },
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

static void json_counts(const struct summary *s, struct jw *j)
{
	const struct profile *p = s->p;
	const uint64_t *b = p->stats.bpf;

	j_u64(j, "samples", b[STAT_SAMPLES]);
	j_u64(j, "counted", profile__total(p));
	j_u64(j, "lost", profile__lost(p));
	j_u64(j, "stacks", s->stacks);
	j_num(j, "duration_s", p->stats.duration);
	j_str(j, "stopped", s->why);
	j_str(j, "output", s->dest);
	j_open(j, "lost_by_reason");
	j_u64(j, "stack_map_full", b[STAT_LOST_STACKMAP_FULL]);
	j_u64(j, "stack_error", b[STAT_LOST_STACK_ERROR]);
	j_u64(j, "counts_map_full", b[STAT_LOST_COUNTS_FULL]);
	j_close(j);
	j_u64(j, "stacks_by_thread_and_address", p->nsamples);
	j_u64(j, "stack_halves_missing", p->stats.stacks_missing);
	j_u64(j, "tracking_records_lost", p->stats.tracking_lost);
	j_u64(j, "frames", p->stats.frames);
	j_u64(j, "frames_unresolved", p->stats.unresolved);
	j_open(j, "unresolved_by_reason");
	for (int r = UNNAMED_NONE + 1; r < UNNAMED_MAX; r++)
		j_u64(j, unnamed_reasons[r].key, p->stats.unnamed[r]);
	j_close(j);
}

static void json_unwind(const struct summary *s, struct jw *j)
{
	const struct table_stats *t = &s->p->stats.tables;

	j_open(j, "unwind");
	j_u64(j, "walked", s->walked);
	for (int i = 0; i < UNWIND_STOPS_ALL; i++)
		j_u64(j, unwind_stops[i].key, s->p->stats.bpf[unwind_stops[i].stat]);
	j_close(j);
	if (!t->set)
		return;
	j_open(j, "unwind_tables");
	j_u64(j, "files_loaded", t->files);
	j_u64(j, "rows", t->rows);
	j_u64(j, "rows_budget", t->rows_budget);
	j_u64(j, "rows_peak", t->rows_peak);
	j_u64(j, "files_by_frame_pointers", t->files_fp);
	j_u64(j, "files_without_cfi", t->files_without);
	j_u64(j, "files_over_build_budget", t->files_over_budget);
	j_u64(j, "files_did_not_fit", t->files_refused);
	j_u64(j, "files_dropped", t->files_dropped);
	j_u64(j, "files_reused", t->files_reused);
	j_u64(j, "files_evicted", t->files_evicted);
	j_u64(j, "process_entries", t->procs);
	j_u64(j, "asked_by_a_sample", t->asked);
	j_num(j, "build_s", t->build_seconds);
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

static void json_python(const struct profile *p, struct jw *j)
{
	const struct profile_stats *st = &p->stats;

	j_open(j, "python");
	j_u64(j, "processes", st->py_procs);
	j_u64(j, "unsupported", st->py_unsupported);
	j_u64(j, "frames_read", st->bpf[STAT_PY_FRAMES]);
	j_u64(j, "frames_named", st->py_frames);
	j_u64(j, "frames_unnamed", st->py_unnamed);
	j_u64(j, "no_thread_state", st->bpf[STAT_PY_NO_THREAD]);
	j_u64(j, "read_faults", st->bpf[STAT_PY_READ_FAULT]);
	j_u64(j, "past_max_depth", st->bpf[STAT_PY_TRUNCATED]);
	j_u64(j, "codes_process_gone", st->py_codes_gone);
	j_u64(j, "codes_unreadable", st->py_codes_bad);
	j_close(j);
}

static void json_inputs(const struct profile *p, struct jw *j)
{
	const struct profile_stats *st = &p->stats;

	j_open(j, "inputs");
	j_u64(j, "files_over_size_limits", st->files_over_limit);
	j_u64(j, "files_dwarf_over_mem", st->files_dwarf_over);
	j_u64(j, "jit_maps_refused", st->jit_refused);
	j_u64(j, "jit_lines_malformed", st->jit_malformed);
	j_u64(j, "jit_lines_past_cap", st->jit_over_cap);
	j_close(j);
	if (!st->debuginfod)
		return;
	j_open(j, "debuginfod");
	j_u64(j, "fetched", st->debuginfod_fetched);
	j_u64(j, "failed", st->debuginfod_failed);
	j_key(j, "timeout_spent");
	fputs(st->debuginfod_spent ? "true" : "false", j->f);
	j_close(j);
}

static void json_labels(const struct profile *p, struct jw *j)
{
	j_open(j, "labels");
	j_u64(j, "cgroups", p->stats.cgroups);
	j_u64(j, "cgroups_unnamed", p->stats.cgroups_unnamed);
	j_u64(j, "samples_past_max_cgroups", p->stats.cgroups_merged);
	j_close(j);
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
	json_python(s->p, &j);
	json_inputs(s->p, &j);
	json_labels(s->p, &j);
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
