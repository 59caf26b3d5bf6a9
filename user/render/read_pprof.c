// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pprof profiles for the views (read_pprof.h): decoded within the profile
 * limit, their samples' locations, inline lines and labels made vprof
 * stacks, every list found by id through a table built once. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "render/read_pprof.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Location Location;

/* The label value of key in a sample, by its string index. */
static const Perftools__Profiles__Label *find_label(const Perftools__Profiles__Sample *s,
						    int64_t key)
{
	size_t i;

	for (i = 0; key > 0 && i < s->n_label; i++)
		if (s->label[i]->key == key)
			return s->label[i];
	return NULL;
}

static const char *pp_string(const Profile *pr, int64_t i)
{
	return i >= 0 && (uint64_t)i < pr->n_string_table ? pr->string_table[i] : "";
}

static int64_t pp_string_index(const Profile *pr, const char *s)
{
	size_t i;

	for (i = 1; i < pr->n_string_table; i++)
		if (!strcmp(pr->string_table[i], s))
			return (int64_t)i;
	return -1;
}

size_t read_pprof__at(const struct addr_ranges *ids, uint64_t id)
{
	const struct addr_range *r = addr_ranges__first_at(ids, id);

	return r ? r->at : SIZE_MAX;
}

/* Frames of one sample, at most: bpfprof writes 127 user and 127 kernel
 * locations, each a few lines when inlined; Go's pprof keeps 128 and
 * async-profiler 2048 by default. 4096 leaves room for all of them while
 * a crafted sample (one location id repeated 10^6 times, each of many
 * lines) is refused rather than made a stack of millions. */
#define MAX_SAMPLE_FRAMES	4096
/* Frames of all samples (a uint32_t each): memory bounded by the limit. */
#define MAX_PROFILE_FRAMES	(MAX_PROFILE_BYTES / sizeof(uint32_t))

/* A pprof profile being read: its id tables and one sample's frames. */
struct pp_reader {
	const Profile *pr;
	struct addr_ranges loc, fn, map;	/* READ_PPROF_IDS */
	uint32_t ids[MAX_SAMPLE_FRAMES];
	size_t frames;		/* of all samples so far */
	char name[4096];	/* "file+0xADDR" */
};

/* What a mapping's name says of its frames: the kernel's, a JIT's (ours
 * "[jit]"; perf's "[JIT] tid N" or its map "/tmp/perf-N.map"), or a file's. */
static enum frame_kind mapping_kind(const char *dso)
{
	if (!strncmp(dso, "[kernel", 7) || !strcmp(dso, "[vmlinux]"))
		return FK_KERNEL;
	if (!strcmp(dso, "[jit]") || !strncmp(dso, "[JIT]", 5) || !strncmp(dso, "/tmp/perf-", 10))
		return FK_JIT;
	return frame_kind__from_mapping(dso);
}

/* A runtime frame's name as the folded form writes it, "function
 * (file.py:LINE)" (base/frame_kind.h's name_has_line): bpfprof's pprof
 * keeps the function and the line apart (one Function per code object),
 * the views show them as the folded file. */
static const char *name_with_line(struct pp_reader *r, const char *fn, const char *file,
			       int64_t line)
{
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;

	if (!*file)
		return fn;
	if (line > 0)
		snprintf(r->name, sizeof(r->name), "%s (%s:%" PRId64 ")", fn, base, line);
	else
		snprintf(r->name, sizeof(r->name), "%s (%s)", fn, base);
	return r->name;
}

/* One location, outermost line first: every line but the last is inlined
 * into the next. Returns the frames added to ids (room for at most room),
 * -E2BIG past room or -ENOMEM. */
static int location_frames(struct vprof *v, struct pp_reader *r, const Location *loc,
			   uint32_t *ids, size_t room)
{
	const Profile *pr = r->pr;
	size_t mi = loc->mapping_id ? read_pprof__at(&r->map, loc->mapping_id) : SIZE_MAX;
	const Perftools__Profiles__Mapping *m = mi != SIZE_MAX ? pr->mapping[mi] : NULL;
	const char *dso = m ? pp_string(pr, m->filename) : "";
	enum frame_kind kind = mapping_kind(dso);
	bool with_line = frame_kind__row(kind)->name_has_line;
	size_t n = 0, i;
	int64_t id;

	for (i = loc->n_line; i-- > 0;) {
		size_t fi = read_pprof__at(&r->fn, loc->line[i]->function_id);
		const char *name = fi != SIZE_MAX ? pp_string(pr, pr->function[fi]->name) : "";

		if (!*name)
			continue;
		if (with_line)
			name = name_with_line(r, name, pp_string(pr, pr->function[fi]->filename),
					   loc->line[i]->line);
		if (n == room)
			return -E2BIG;
		id = vprof__frame(v, name, dso, kind == FK_USER && i ? FK_INLINE : kind);
		if (id < 0)
			return -ENOMEM;
		ids[n++] = (uint32_t)id;
	}
	if (n)
		return (int)n;
	if (!room)
		return -E2BIG;
	/* no function: "file+0xADDR" as bpfprof's folded output writes it */
	snprintf(r->name, sizeof(r->name), "%s+0x%" PRIx64, *dso ? dso : "[unknown]",
		 loc->address - (m ? m->memory_start - m->file_offset : 0));
	id = vprof__frame(v, r->name, dso, kind);
	if (id < 0)
		return -ENOMEM;
	ids[0] = (uint32_t)id;
	return 1;
}

/* One sample: 0, -ENOMEM, -EOVERFLOW (the counts' sum), -E2BIG (more than
 * MAX_SAMPLE_FRAMES frames) or -EFBIG (the frames of all samples past
 * MAX_PROFILE_FRAMES). */
static int pprof_sample(struct vprof *v, struct pp_reader *r, const Perftools__Profiles__Sample *s,
			size_t value_index, int64_t comm_key, int64_t pid_key)
{
	const Perftools__Profiles__Label *comm = find_label(s, comm_key), *pid = find_label(s, pid_key);
	size_t nids = 0, i, at;
	int n;

	if (value_index >= s->n_value || s->value[value_index] <= 0)
		return 0;
	if (s->n_location_id > MAX_SAMPLE_FRAMES)
		return -E2BIG;	/* each location is a frame at least */
	/* pprof lists the leaf first */
	for (i = s->n_location_id; i-- > 0;) {
		at = read_pprof__at(&r->loc, s->location_id[i]);
		n = at != SIZE_MAX ? location_frames(v, r, r->pr->location[at], r->ids + nids,
						      MAX_SAMPLE_FRAMES - nids) : 0;
		if (n < 0)
			return n;
		nids += (size_t)n;
	}
	if (nids > MAX_PROFILE_FRAMES - r->frames)
		return -EFBIG;
	r->frames += nids;
	return vprof__add(v, comm ? pp_string(r->pr, comm->str) : "", pid ? (pid_t)pid->num : 0,
			  r->ids, (uint32_t)nids, (uint64_t)s->value[value_index]);
}

/* protobuf-c's allocations while a pprof decodes, counted (not its frees:
 * decoding frees only when it fails). A file of empty samples took 60 bytes
 * of memory a byte of file (6 GB for 100 MB): decoding fails past the
 * profile limit instead. */
struct decode_budget {
	size_t used;
	bool over;
};

static void *budget_alloc(void *data, size_t size)
{
	struct decode_budget *b = data;

	if (size > MAX_PROFILE_BYTES - b->used) {
		b->over = true;
		return NULL;
	}
	b->used += size;
	return malloc(size);
}

static void budget_free(void *data, void *p)
{
	(void)data;
	free(p);
}

/* Decoding: protobuf-c through a counting allocator (read_pprof.h). */
Profile *read_pprof__unpack(const uint8_t *buf, size_t len, bool *too_big)
{
	struct decode_budget b = { 0 };
	ProtobufCAllocator counted = { budget_alloc, budget_free, &b };
	Profile *pr = perftools__profiles__profile__unpack(&counted, len, buf);

	*too_big = b.over;
	if (pr && pr->n_sample_type && pr->n_string_table && !pr->string_table[0][0])
		return pr;
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	return NULL;
}

static void pp_reader__free(struct pp_reader *r)
{
	addr_ranges__free(&r->loc);
	addr_ranges__free(&r->fn);
	addr_ranges__free(&r->map);
	free(r);
}

int read_pprof__parse(const char *what, const Profile *pr, struct vprof *v)
{
	struct pp_reader *r = calloc(1, sizeof(*r));
	int64_t comm_key, pid_key;
	size_t i;
	int err = r ? 0 : -ENOMEM;

	if (!err) {
		r->pr = pr;
		err = READ_PPROF_IDS(&r->loc, pr->location, pr->n_location);
		err = err ?: READ_PPROF_IDS(&r->fn, pr->function, pr->n_function);
		err = err ?: READ_PPROF_IDS(&r->map, pr->mapping, pr->n_mapping);
	}
	comm_key = pp_string_index(pr, "comm");
	pid_key = pp_string_index(pr, "pid");
	/* value 0: bpfprof's samples/count, or the first event */
	for (i = 0; !err && i < pr->n_sample; i++)
		err = pprof_sample(v, r, pr->sample[i], 0, comm_key, pid_key);
	v->has_comm = comm_key > 0;
	if (err == -EOVERFLOW)
		p_err("%s: the sample counts add up past 2^64-1", what);
	else if (err == -E2BIG)
		p_err("%s: sample %zu has more than %d frames", what, i, MAX_SAMPLE_FRAMES);
	else if (err == -EFBIG)
		p_err("%s: its stacks take more than " MAX_PROFILE_TEXT " of memory", what);
	if (r)
		pp_reader__free(r);
	return err;
}
