// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* profile -> profile.proto (protobuf-c, generated from user/proto/) -> gzip. */
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/cgroup_name.h"
#include "profile/aggregate.h"
#include "output/gzip.h"
#include "output/pprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

#define PPROF_COMMENTS_MAX 16	/* lines of the comment kept */

/* Tables of a profile under construction; every id is index + 1. */
/* A cgroup's labels' string indices (0: the label is not there): its path
 * and the container, pod and unit that path names. */
struct cgroup_labels {
	const struct pcgroup *of;
	int64_t path, container, pod, unit;
};

struct builder {
	Profile prof;
	void *strings;		/* tree: struct pp_key by string */
	void *mappings;		/* tree: struct pp_key by (mapping, build_id) pointers */
	void *functions;	/* tree: struct pp_key by (name, mapping) pointers */
	void *locations;	/* tree: struct pp_key by (mapping id, addr, function id, line) */
	size_t cap_str, cap_map, cap_fn, cap_loc;
	char **owned;		/* strings made here (comment lines, Python functions) */
	size_t n_owned, cap_owned;
	struct cgroup_labels cg;	/* the last sample's cgroup's */
	int err;
};

struct pp_key {
	const void *a, *b;	/* interned strings: compared by pointer */
	uint64_t x, y, z, w;
	uint64_t id;
};

static int cmp_entry(const void *pa, const void *pb)
{
	const struct pp_key *a = pa, *b = pb;

	if (a->a != b->a)
		return (uintptr_t)a->a < (uintptr_t)b->a ? -1 : 1;
	if (a->b != b->b)
		return (uintptr_t)a->b < (uintptr_t)b->b ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if (a->z != b->z)
		return a->z < b->z ? -1 : 1;
	return (a->w > b->w) - (a->w < b->w);
}

static int cmp_string(const void *pa, const void *pb)
{
	return strcmp(((const struct pp_key *)pa)->a, ((const struct pp_key *)pb)->a);
}

/* Finds key in tree, or inserts a copy with id = next; 0 on error. */
static uint64_t lookup_or_add(struct builder *b, void **tree, const struct pp_key *key,
			      int (*cmp)(const void *, const void *), uint64_t next, bool *added)
{
	struct pp_key *e;
	void *node = tfind(key, tree, cmp);

	*added = false;
	if (node)
		return (*(struct pp_key **)node)->id;
	e = malloc(sizeof(*e));
	if (!e || (*e = *key, e->id = next, !tsearch(e, tree, cmp))) {
		free(e);
		b->err = -ENOMEM;
		return 0;
	}
	*added = true;
	return next;
}

static int64_t str_index(struct builder *b, const char *s)
{
	struct pp_key key = { .a = s };
	size_t n = b->prof.n_string_table;
	bool added;
	uint64_t id;

	if (GROW(b->prof.string_table, b->cap_str, n + 1)) {
		b->err = -ENOMEM;
		return 0;
	}
	id = lookup_or_add(b, &b->strings, &key, cmp_string, n, &added);
	if (added)
		b->prof.string_table[b->prof.n_string_table++] = (char *)s;
	return (int64_t)id;
}

/* The index of the first len bytes of s, a copy of them owned by the
 * builder (the table keeps pointers: the text must outlive the write). */
static int64_t own_index(struct builder *b, const char *s, size_t len)
{
	char *copy = strndup(s, len);
	int64_t idx;

	if (!copy || GROW(b->owned, b->cap_owned, b->n_owned + 1)) {
		free(copy);
		b->err = -ENOMEM;
		return 0;
	}
	idx = str_index(b, copy);
	if (b->err || b->prof.string_table[idx] != copy)
		free(copy);	/* seen before: the table's copy is it */
	else
		b->owned[b->n_owned++] = copy;
	return b->err ? 0 : idx;
}

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
	id = lookup_or_add(b, &b->mappings, &key, cmp_entry, n + 1, &added);
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
	m->filename = str_index(b, f->mapping[0] ? f->mapping : "[unknown]");
	m->build_id = str_index(b, f->build_id);
	m->has_functions = f->name[0] != '\0';	/* else named later */
	b->prof.mapping[b->prof.n_mapping++] = m;
	return id;
}

/* A sample's executable: its file frame at the lowest address (a PIE's
 * 0x55..., a static binary's 0x400000 lie below the libraries, the vDSO;
 * JIT code and Python frames are no files: no '/'). NULL: none. */
static const struct pframe *sample_exe(const struct psample *s)
{
	const struct pframe *best = NULL, *f;

	for (uint32_t k = 0; k < s->nframes; k++) {
		f = s->frames[k];
		if (!f->kernel && f->mapping && f->mapping[0] == '/' && f->map_limit &&
		    (!best || f->map_start < best->map_start))
			best = f;
	}
	return best;
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
		f = p->samples[k].tgid == p->stats.main_pid ? sample_exe(&p->samples[k]) : NULL;
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

/* A Python frame's function: its name without the " (file.py:LINE)" the
 * folded form adds (the line goes into the Line), so one code object is
 * one Function whatever line runs. */
static const char *python_function(struct builder *b, const char *name)
{
	const char *paren = strrchr(name, '(');
	size_t len = paren && paren > name && paren[-1] == ' ' ? (size_t)(paren - 1 - name) :
		     strlen(name);

	return b->prof.string_table[own_index(b, name, len)];
}

/* A function is its name in its source file (DWARF's; empty when unknown,
 * never the binary: pprof -list would print the ELF as source); a Python
 * one, its code object: name, file, first line. */
static uint64_t function_id(struct builder *b, const struct pframe *f)
{
	const char *name = f->python ? python_function(b, f->name) : f->name;
	struct pp_key key = { .a = name, .b = f->file, .x = f->start_line };
	size_t n = b->prof.n_function;
	Function *fn;
	bool added;
	uint64_t id;

	if (GROW(b->prof.function, b->cap_fn, n + 1)) {
		b->err = -ENOMEM;
		return 0;
	}
	id = lookup_or_add(b, &b->functions, &key, cmp_entry, n + 1, &added);
	if (!added)
		return id;
	fn = calloc(1, sizeof(*fn));
	if (!fn) {
		b->err = -ENOMEM;
		return 0;
	}
	perftools__profiles__function__init(fn);
	fn->id = id;
	fn->name = fn->system_name = str_index(b, name);
	fn->filename = str_index(b, f->file ? f->file : "");
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
	id = lookup_or_add(b, &b->locations, &key, cmp_entry, nloc + 1, &added);
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

/* One allocation per sample: the Sample, its location ids, its two values
 * and its labels. */
struct sample_block {
	Sample s;
	int64_t values[MAX_EVENTS + 1];
	Label *label_ptrs[MAX_LABELS];
	Label labels[MAX_LABELS];
	uint64_t locations[];
};

static int64_t own_string(struct builder *b, const char *s)
{
	return s[0] ? own_index(b, s, strlen(s)) : 0;
}

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
		.path = cg->path ? own_string(b, cg->path) : 0,
		.container = own_string(b, name.container),
		.pod = own_string(b, name.pod),
		.unit = own_string(b, name.unit),
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
	l->key = str_index(b, label__word(label));
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
	n += put_label(b, p, LABEL_COMM, str_index(b, ps->comm), 0, &l[n]);
	n += put_label(b, p, LABEL_CGROUP, cl->path, 0, &l[n]);
	n += put_label(b, p, LABEL_CONTAINER, cl->container, 0, &l[n]);
	n += put_label(b, p, LABEL_POD, cl->pod, 0, &l[n]);
	n += put_label(b, p, LABEL_UNIT, cl->unit, 0, &l[n]);
	return n;
}

/* One sample type per event; a single event has pprof's usual pair,
 * samples/count and cpu/nanoseconds (count times the period). */
static int add_sample(struct builder *b, const struct profile *p, const struct psample *ps,
		      Sample **out, int64_t period)
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
	if (p->nevents <= 1) {
		blk->values[0] = (int64_t)ps->count;
		blk->values[1] = (int64_t)ps->count * period;
		blk->s.n_value = 2;
	} else {
		if (ps->event < MAX_EVENTS)
			blk->values[ps->event] = (int64_t)ps->count;
		blk->s.n_value = (size_t)p->nevents;
	}
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

static void value_types(struct builder *b, const struct profile *p, ValueType *types,
			ValueType **type_ptrs)
{
	Profile *pr = &b->prof;
	int i, n = p->nevents <= 1 ? 2 : p->nevents;

	for (i = 0; i <= n; i++)
		perftools__profiles__value_type__init(&types[i]);
	if (p->nevents <= 1) {
		types[0].type = str_index(b, "samples");
		types[0].unit = str_index(b, "count");
		types[1].type = types[2].type = str_index(b, "cpu");
		types[1].unit = types[2].unit = str_index(b, "nanoseconds");
	} else {
		for (i = 0; i < n; i++) {
			types[i].type = str_index(b, p->events[i].name);
			types[i].unit = str_index(b, p->events[i].unit);
		}
		types[n] = types[0];
	}
	for (i = 0; i < n; i++)
		type_ptrs[i] = &types[i];
	pr->sample_type = type_ptrs;
	pr->n_sample_type = (size_t)n;
	pr->period_type = &types[n];
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
		comment_idx[pr->n_comment++] = own_index(b, comment, len);
		comment += len + (comment[len] == '\n');
	}
	pr->comment = comment_idx;
}

static int build(struct builder *b, const struct profile *p, const char *comment,
		 ValueType types[MAX_EVENTS + 2], ValueType *type_ptrs[MAX_EVENTS + 1],
		 int64_t comment_idx[PPROF_COMMENTS_MAX])
{
	int64_t period = p->stats.freq ? 1000000000ll / p->stats.freq : 0;
	Profile *pr = &b->prof;
	size_t i;
	int err = 0;

	perftools__profiles__profile__init(pr);
	str_index(b, "");	/* entry 0 is the empty string, always */
	value_types(b, p, types, type_ptrs);
	pr->period = period;
	pr->time_nanos = (int64_t)p->stats.start_wall_ns;
	pr->duration_nanos = (int64_t)profile_stats__duration_ns(&p->stats);
	add_comments(b, comment, comment_idx);
	main_mapping(b, p);
	pr->sample = calloc(p->nsamples ? p->nsamples : 1, sizeof(*pr->sample));
	if (!pr->sample)
		return -ENOMEM;
	for (i = 0; !err && i < p->nsamples; i++) {
		err = add_sample(b, p, &p->samples[i], &pr->sample[i], period);
		if (pr->sample[i])
			pr->n_sample++;
	}
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

int pprof__write(const struct profile *p, const char *comment, FILE *out)
{
	struct builder b = { 0 };
	ValueType types[MAX_EVENTS + 2], *type_ptrs[MAX_EVENTS + 1];
	int64_t comment_idx[PPROF_COMMENTS_MAX];
	uint8_t *buf = NULL;
	size_t len;
	int err;

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
