// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* profile -> profile.proto (protobuf-c, generated from user/proto/) -> gzip. */
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/cgroup_name.h"
#include "base/utf8_safe.h"
#include "profile/aggregate.h"
#include "output/frame_kind.h"
#include "output/gzip.h"
#include "output/pprof.h"
#include "output/pprof_priv.h"
#include "output/sample_kind.h"
#include "profile.pb-c.h"

#define PPROF_COMMENTS_MAX 16	/* lines of the comment kept */

/* A mapping as the process had it: addresses are virtual addresses in it,
 * so pprof's own tools (-disasm, -symbolize) find the file offset as
 * address - start + offset. A file mapped in several processes (or at
 * several places) is a mapping per place. */
static uint64_t mapping_id(struct builder *b, const struct pframe *f)
{
	struct pp_key key = { .a = f->mapping, .b = f->build_id,
			      .x = f->map_start, .y = f->map_limit, .z = f->map_off };
	size_t n = b->prof.n_mapping;
	Mapping *m;
	bool added;
	uint64_t id;

	if (GROW(b->prof.mapping, b->cap_map, n + 1)) {
		b->err = -ENOMEM;
		return 0;
	}
	id = pp_table__find_or_add(b, &b->mappings, &key, pp_table__cmp, n + 1, &added);
	if (!added)
		return id;
	m = calloc(1, sizeof(*m));
	if (!m) {
		b->err = -ENOMEM;
		return 0;
	}
	perftools__profiles__mapping__init(m);
	m->id = id;
	m->memory_start = f->map_start;
	m->memory_limit = f->map_limit;
	m->file_offset = f->map_off;
	m->filename = pp_strings__index(b, f->mapping[0] ? f->mapping : "[unknown]");
	m->build_id = pp_strings__index(b, f->build_id);
	b->prof.mapping[b->prof.n_mapping++] = m;
	return id;
}

/* The profiled program's executable: of its samples' executables, the
 * one most samples ran in (a command through a shell or a pyenv shim execs
 * several: bash, env, then python3.11). NULL when none is in a file. */
static const struct pframe *main_frame(const struct profile *p)
{
	struct exe_vote { const struct pframe *f; uint64_t n; } votes[16];
	size_t nvotes = 0, i, best = 0;
	const struct pframe *f;

	for (size_t k = 0; p->stats.main_pid && k < p->nsamples; k++) {
		f = p->samples[k].tgid == p->stats.main_pid ? frame_kind__sample_exe(&p->samples[k]) : NULL;
		if (!f)
			continue;
		for (i = 0; i < nvotes && votes[i].f->mapping != f->mapping; i++)
			;
		if (i == nvotes && nvotes == sizeof(votes) / sizeof(votes[0]))
			continue;	/* more images than that: the first ones decide */
		if (i == nvotes)
			votes[nvotes++] = (struct exe_vote){ f, 0 };
		votes[i].n += p->samples[k].raw;
	}
	for (i = 1; i < nvotes; i++)
		if (votes[i].n > votes[best].n)
			best = i;
	return nvotes ? votes[best].f : NULL;
}

/* pprof's first Mapping is the main binary (go tool pprof's "File:"): the
 * profiled program's executable; for the whole machine (-a) one without a
 * file, so that no file (the kernel's, whichever came first) is named. */
static void main_mapping(struct builder *b, const struct profile *p)
{
	const struct pframe *f = main_frame(p);
	Mapping *m;

	if (f) {
		mapping_id(b, f);
		return;
	}
	m = calloc(1, sizeof(*m));
	if (!m || GROW(b->prof.mapping, b->cap_map, b->prof.n_mapping + 1)) {
		free(m);
		b->err = -ENOMEM;
		return;
	}
	perftools__profiles__mapping__init(m);
	m->id = 1;
	b->prof.mapping[b->prof.n_mapping++] = m;
}

/* A function is its name in its source file (DWARF's; empty when unknown,
 * never the binary: pprof -list would print the ELF as source); a Python
 * one, its code object: name, file, first line. */
static uint64_t function_id(struct builder *b, const struct pframe *f)
{
	size_t len = frame_kind__function_len(f);
	const char *name = len == strlen(f->name) ? f->name :
			   b->prof.string_table[pp_strings__own_n(b, f->name, len)];
	struct pp_key key = { .a = name, .b = f->file, .x = f->start_line };
	size_t n = b->prof.n_function;
	Function *fn;
	bool added;
	uint64_t id;

	if (GROW(b->prof.function, b->cap_fn, n + 1)) {
		b->err = -ENOMEM;
		return 0;
	}
	id = pp_table__find_or_add(b, &b->functions, &key, pp_table__cmp, n + 1, &added);
	if (!added)
		return id;
	fn = calloc(1, sizeof(*fn));
	if (!fn) {
		b->err = -ENOMEM;
		return 0;
	}
	perftools__profiles__function__init(fn);
	fn->id = id;
	fn->name = fn->system_name = pp_strings__index(b, name);
	fn->filename = pp_strings__index(b, f->file ? f->file : "");
	fn->start_line = f->start_line;
	b->prof.function[b->prof.n_function++] = fn;
	return id;
}

/* One Location per address: the frame that holds the code and the frames
 * inlined into it there (f[0..n), root first), as Lines, innermost first.
 * The leaf's line is in the key too: a Python frame has no address, so
 * its lines (one function's 13 and 14) are told apart by it alone. */
static uint64_t location_id(struct builder *b, const struct pframe *const *f, uint32_t n)
{
	bool unnamed = n == 1 && !f[0]->name[0];	/* --symbolize none */
	uint64_t map = mapping_id(b, f[0]), leaf_fn = unnamed ? 0 : function_id(b, f[n - 1]), id;
	struct pp_key key = { .b = (const void *)(uintptr_t)n, .x = map, .y = f[0]->addr, .z = leaf_fn,
			      .w = f[n - 1]->line };
	size_t nloc = b->prof.n_location;
	Location *loc;
	Line *lines;
	bool added;

	if (b->err || GROW(b->prof.location, b->cap_loc, nloc + 1)) {
		b->err = -ENOMEM;
		return 0;
	}
	id = pp_table__find_or_add(b, &b->locations, &key, pp_table__cmp, nloc + 1, &added);
	if (!added)
		return id;
	if (unnamed)
		n = 0;	/* an address, named later (bpfprof symbolize) */
	loc = calloc(1, sizeof(*loc) + n * (sizeof(Line *) + sizeof(Line)));
	if (!loc) {
		b->err = -ENOMEM;
		return 0;
	}
	/* one allocation: the location, its line array, the lines */
	perftools__profiles__location__init(loc);
	loc->line = (Line **)(loc + 1);
	lines = (Line *)(loc->line + n);
	for (uint32_t i = 0; i < n; i++) {
		const struct pframe *fr = f[n - 1 - i];

		perftools__profiles__line__init(&lines[i]);
		lines[i].function_id = function_id(b, fr);
		lines[i].line = fr->line;
		loc->line[i] = &lines[i];
	}
	loc->n_line = n;
	loc->id = id;
	loc->mapping_id = map;
	loc->address = f[0]->addr;
	b->prof.location[b->prof.n_location++] = loc;
	return id;
}

/* pid, tid, comm, and the cgroup's four (enum label_bit) */
#define MAX_LABELS	7
/* value columns: an event's one, or CPU time's two */
#define MAX_COLUMNS	(2 * MAX_EVENTS)

/* One allocation per sample: the Sample, its location ids, its values
 * and its labels. */
struct sample_block {
	Sample s;
	int64_t values[MAX_COLUMNS];
	Label *label_ptrs[MAX_LABELS];
	Label labels[MAX_LABELS];
	uint64_t locations[];
};

/* cg's labels, named once for the samples in a row that ran in it (they
 * come by process). */
static const struct cgroup_labels *cgroup_labels(struct builder *b, const struct pcgroup *cg)
{
	struct cgroup_name name;

	if (b->cg.of == cg)
		return &b->cg;
	cgroup_name__parse(cg->path ? cg->path : "", &name);
	b->cg = (struct cgroup_labels){
		.of = cg,
		.path = cg->path ? pp_strings__own(b, cg->path) : 0,
		.container = pp_strings__own(b, name.container),
		.pod = pp_strings__own(b, name.pod),
		.unit = pp_strings__own(b, name.unit),
	};
	return &b->cg;
}

/* label's key and value into l (num when str is 0) if the profile keeps
 * it and it is there. Returns how many it added: 0 or 1. */
static size_t put_label(struct builder *b, const struct profile *p, unsigned int label,
			int64_t str, int64_t num, Label *l)
{
	if ((p->labels_off & label) || (!str && label != LABEL_PID && label != LABEL_TID))
		return 0;
	l->key = pp_strings__index(b, label__word(label));
	l->str = str;
	l->num = num;
	return 1;
}

/* The sample's labels that the profile keeps (--labels). Returns how many. */
static size_t add_labels(struct builder *b, const struct profile *p, const struct psample *ps,
			 Label *l)
{
	static const struct cgroup_labels none;
	const struct cgroup_labels *cl = ps->cgroup ? cgroup_labels(b, ps->cgroup) : &none;
	size_t n = 0;

	n += put_label(b, p, LABEL_PID, 0, ps->tgid, &l[n]);
	n += put_label(b, p, LABEL_TID, 0, ps->pid, &l[n]);
	n += put_label(b, p, LABEL_COMM, pp_strings__index(b, ps->comm), 0, &l[n]);
	n += put_label(b, p, LABEL_CGROUP, cl->path, 0, &l[n]);
	n += put_label(b, p, LABEL_CONTAINER, cl->container, 0, &l[n]);
	n += put_label(b, p, LABEL_POD, cl->pod, 0, &l[n]);
	n += put_label(b, p, LABEL_UNIT, cl->unit, 0, &l[n]);
	return n;
}

/* An event's values in its columns (sample_kind.h), 0 in the others. */
static void sample_values(const struct builder *b, const struct psample *ps, int64_t *values)
{
	uint32_t ev = b->only >= 0 ? 0 : ps->event < (uint32_t)b->nevents ? ps->event : 0;
	const struct sample_kind *k = &b->kinds[ev];

	for (int v = 0; v < k->nvalues; v++)
		values[b->col[ev] + v] = sample_kind__value(k, &b->events[ev], ps, v);
}

static int add_sample(struct builder *b, const struct profile *p, const struct psample *ps,
		      Sample **out)
{
	struct sample_block *blk;
	uint32_t i, first, nloc = 0;

	blk = calloc(1, sizeof(*blk) + ps->nframes * sizeof(uint64_t));
	if (!blk)
		return -ENOMEM;
	perftools__profiles__sample__init(&blk->s);
	/* pprof lists the leaf first; the profile holds the root first, each
	 * address's inlined frames after the one that holds the code */
	for (i = ps->nframes; i > 0; i = first) {
		first = i - 1;
		while (first > 0 && ps->frames[first]->inlined)
			first--;
		blk->locations[nloc++] = location_id(b, &ps->frames[first], i - first);
	}
	blk->s.location_id = blk->locations;
	blk->s.n_location_id = nloc;
	sample_values(b, ps, blk->values);
	blk->s.n_value = (size_t)b->ncols;
	blk->s.value = blk->values;
	for (i = 0; i < MAX_LABELS; i++) {
		perftools__profiles__label__init(&blk->labels[i]);
		blk->label_ptrs[i] = &blk->labels[i];
	}
	blk->s.label = blk->label_ptrs;
	blk->s.n_label = add_labels(b, p, ps, blk->labels);
	*out = &blk->s;
	return b->err;
}

/* The events written, each with its kind and first column: the
 * profile's (a profile of none, read from elsewhere, is CPU time), or the
 * one asked for. */
static void choose_events(struct builder *b, const struct profile *p, int only)
{
	struct pevent spare;

	b->only = only;
	b->nevents = only >= 0 || p->nevents < 1 ? 1 : p->nevents;
	for (int i = 0; i < b->nevents; i++)
		b->events[i] = *sample_kind__event(p, only >= 0 ? only : i, &spare);
	for (int i = 0; i < b->nevents; i++) {
		sample_kind__of(&b->events[i], &b->kinds[i]);
		b->col[i] = b->ncols;
		b->ncols += b->kinds[i].nvalues;
	}
}

/* Each event's sample types, in turn; the period, the first event's
 * (pprof has one): the default sample type is the last, as pprof reads
 * it, so CPU time shows as time, not samples. */
static void value_types(struct builder *b, ValueType *types, ValueType **type_ptrs)
{
	const struct sample_kind *first = &b->kinds[0];
	Profile *pr = &b->prof;
	int c = 0;

	for (int i = 0; i < b->nevents; i++) {
		for (int v = 0; v < b->kinds[i].nvalues; v++, c++) {
			perftools__profiles__value_type__init(&types[c]);
			types[c].type = pp_strings__index(b, b->kinds[i].type[v]);
			types[c].unit = pp_strings__index(b, b->kinds[i].unit[v]);
			type_ptrs[c] = &types[c];
		}
	}
	perftools__profiles__value_type__init(&types[c]);
	types[c].type = pp_strings__index(b, first->period_type);
	types[c].unit = pp_strings__index(b, first->period_unit);
	pr->sample_type = type_ptrs;
	pr->n_sample_type = (size_t)c;
	pr->period_type = &types[c];
	pr->period = first->period;
}

/* What loc's Lines hold, into its mapping's flags. A frame with its
 * source file and line was read from DWARF, which names the frames
 * inlined at its address too: its inline frames are resolved. */
static void location_flags(const Profile *pr, const Location *loc)
{
	Mapping *m = loc->mapping_id ? pr->mapping[loc->mapping_id - 1] : NULL;

	for (size_t i = 0; m && i < loc->n_line; i++) {
		const Function *f = pr->function[loc->line[i]->function_id - 1];
		bool file = pr->string_table[f->filename][0], line = loc->line[i]->line > 0;

		m->has_functions = m->has_functions || pr->string_table[f->name][0];
		m->has_filenames = m->has_filenames || file;
		m->has_line_numbers = m->has_line_numbers || line;
		m->has_inline_frames = m->has_inline_frames || (file && line);
	}
}

/* pprof's mapping flags say what the profile holds, as pprof's own
 * symbolizer sets them (internal/symbolizer, symbolizeOneMapping): a flag
 * is true when a location of the mapping has it (a function name, a
 * source file, a line, an address resolved with its inlined frames); its
 * tools then do not symbolize the mapping again. */
static void mapping_flags(struct builder *b)
{
	for (size_t i = 0; i < b->prof.n_location; i++)
		location_flags(&b->prof, b->prof.location[i]);
}

/* The comment's lines, one pprof comment each (go tool pprof -raw and
 * -comments print them a line apiece). */
static void add_comments(struct builder *b, const char *comment,
			 int64_t comment_idx[PPROF_COMMENTS_MAX])
{
	Profile *pr = &b->prof;
	size_t len;

	while (comment && *comment && pr->n_comment < PPROF_COMMENTS_MAX) {
		len = strcspn(comment, "\n");
		comment_idx[pr->n_comment++] = pp_strings__own_n(b, comment, len);
		comment += len + (comment[len] == '\n');
	}
	pr->comment = comment_idx;
}

static int build(struct builder *b, const struct profile *p, const char *comment,
		 ValueType types[MAX_COLUMNS + 1], ValueType *type_ptrs[MAX_COLUMNS],
		 int64_t comment_idx[PPROF_COMMENTS_MAX])
{
	Profile *pr = &b->prof;
	size_t i;
	int err = 0;

	perftools__profiles__profile__init(pr);
	pp_strings__index(b, "");	/* entry 0 is the empty string, always */
	value_types(b, types, type_ptrs);
	pr->time_nanos = (int64_t)p->stats.start_wall_ns;
	pr->duration_nanos = (int64_t)profile_stats__duration_ns(&p->stats);
	add_comments(b, comment, comment_idx);
	main_mapping(b, p);
	pr->sample = calloc(p->nsamples ? p->nsamples : 1, sizeof(*pr->sample));
	if (!pr->sample)
		return -ENOMEM;
	for (i = 0; !err && i < p->nsamples; i++) {
		if (b->only >= 0 && p->samples[i].event != (uint32_t)b->only)
			continue;
		err = add_sample(b, p, &p->samples[i], &pr->sample[pr->n_sample]);
		if (pr->sample[pr->n_sample])
			pr->n_sample++;
	}
	if (!err && !b->err)
		mapping_flags(b);
	return err ? err : b->err;
}

static void free_builder(struct builder *b)
{
	Profile *pr = &b->prof;
	size_t i;

	for (i = 0; i < pr->n_sample; i++)
		free(pr->sample[i]);	/* the sample_block */
	for (i = 0; i < pr->n_mapping; i++)
		free(pr->mapping[i]);
	for (i = 0; i < pr->n_function; i++)
		free(pr->function[i]);
	for (i = 0; i < pr->n_location; i++)
		free(pr->location[i]);
	free(pr->sample);
	free(pr->mapping);
	free(pr->function);
	free(pr->location);
	free(pr->string_table);
	for (i = 0; i < b->n_owned; i++)
		free(b->owned[i]);
	free(b->owned);
	tdestroy(b->strings, free);
	tdestroy(b->mappings, free);
	tdestroy(b->functions, free);
	tdestroy(b->locations, free);
}

int pprof__write_event(const struct profile *p, int event, const char *comment, FILE *out)
{
	struct builder b = { 0 };
	ValueType types[MAX_COLUMNS + 1], *type_ptrs[MAX_COLUMNS];
	int64_t comment_idx[PPROF_COMMENTS_MAX];
	uint8_t *buf = NULL;
	size_t len;
	int err;

	if (event >= p->nevents)
		return -EINVAL;
	choose_events(&b, p, event);
	err = build(&b, p, comment, types, type_ptrs, comment_idx);
	if (!err) {
		len = perftools__profiles__profile__get_packed_size(&b.prof);
		buf = malloc(len ? len : 1);
		err = buf ? 0 : -ENOMEM;
	}
	if (!err) {
		perftools__profiles__profile__pack(&b.prof, buf);
		err = gzip__write(buf, len, out);
	}
	free(buf);
	free_builder(&b);
	return err;
}

int pprof__write(const struct profile *p, const char *comment, FILE *out)
{
	return pprof__write_event(p, -1, comment, out);
}
