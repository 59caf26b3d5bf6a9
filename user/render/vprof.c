// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The views' profile: interned strings and frames in open-addressing hash
 * tables (100k distinct stacks of 20 frames intern in well under a second),
 * stacks as arrays of frame indices. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profile/aggregate.h"
#include "profile/group_by.h"
#include "base/hash_bytes.h"
#include "render/vprof.h"

#define BLOCK_SIZE	(64 * 1024)

struct vprof *vprof__new(void)
{
	return calloc(1, sizeof(struct vprof));
}

void vprof__free(struct vprof *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nstacks; i++)
		free(v->stacks[i].frames);
	for (i = 0; i < v->nblocks; i++)
		free(v->blocks[i]);
	free(v->blocks);
	free(v->stacks);
	free(v->frames);
	free(v->strings);
	free(v->frame_slots);
	free(v);
}

/* Room for len + 1 bytes of string storage. */
static char *store(struct vprof *v, const char *s, size_t len)
{
	char *dst, **blocks;

	if (len + 1 > BLOCK_SIZE / 4) {
		blocks = realloc(v->blocks, (v->nblocks + 1) * sizeof(*blocks));
		if (!blocks)
			return NULL;
		v->blocks = blocks;
		dst = malloc(len + 1);
		if (!dst)
			return NULL;
		/* a big string gets a block of its own, below the current one */
		if (v->nblocks) {
			blocks[v->nblocks] = blocks[v->nblocks - 1];
			blocks[v->nblocks - 1] = dst;
		} else {
			blocks[0] = dst;
			v->block_used = v->block_cap = 0;
		}
		v->nblocks++;
	} else {
		if (!v->nblocks || v->block_used + len + 1 > v->block_cap) {
			blocks = realloc(v->blocks, (v->nblocks + 1) * sizeof(*blocks));
			if (!blocks)
				return NULL;
			v->blocks = blocks;
			blocks[v->nblocks] = malloc(BLOCK_SIZE);
			if (!blocks[v->nblocks])
				return NULL;
			v->nblocks++;
			v->block_used = 0;
			v->block_cap = BLOCK_SIZE;
		}
		dst = v->blocks[v->nblocks - 1] + v->block_used;
		v->block_used += len + 1;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
	return dst;
}

static int grow_strings(struct vprof *v)
{
	size_t cap = v->strings_cap ? v->strings_cap * 2 : 1024, i;
	const char **table = calloc(cap, sizeof(*table));

	if (!table)
		return -ENOMEM;
	for (i = 0; i < v->strings_cap; i++) {
		const char *s = v->strings[i];
		size_t slot;

		if (!s)
			continue;
		slot = hash_bytes(s, strlen(s)) & (cap - 1);
		while (table[slot])
			slot = (slot + 1) & (cap - 1);
		table[slot] = s;
	}
	free(v->strings);
	v->strings = table;
	v->strings_cap = cap;
	return 0;
}

const char *vprof__intern(struct vprof *v, const char *s, size_t len)
{
	size_t slot;

	if ((v->nstrings + 1) * 2 > v->strings_cap && grow_strings(v))
		return NULL;
	slot = hash_bytes(s, len) & (v->strings_cap - 1);
	for (; v->strings[slot]; slot = (slot + 1) & (v->strings_cap - 1)) {
		const char *t = v->strings[slot];

		if (!strncmp(t, s, len) && t[len] == '\0')
			return t;
	}
	v->strings[slot] = store(v, s, len);
	if (!v->strings[slot])
		return NULL;
	v->nstrings++;
	return v->strings[slot];
}

/* Interned strings compare by pointer: a frame hashes its pointers. */
static size_t frame_hash(const char *name, const char *dso, enum frame_kind kind)
{
	uint64_t h = (uintptr_t)name * 0x9e3779b97f4a7c15ull;

	h ^= ((uintptr_t)dso + kind) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

static int grow_frame_slots(struct vprof *v)
{
	size_t cap = v->frame_slots_cap ? v->frame_slots_cap * 2 : 1024, i;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < v->nframes; i++) {
		const struct vframe *f = &v->frames[i];
		size_t slot = frame_hash(f->name, f->dso, f->kind) & (cap - 1);

		while (slots[slot])
			slot = (slot + 1) & (cap - 1);
		slots[slot] = (uint32_t)i + 1;
	}
	free(v->frame_slots);
	v->frame_slots = slots;
	v->frame_slots_cap = cap;
	return 0;
}

int64_t vprof__frame(struct vprof *v, const char *name, const char *dso, enum frame_kind kind)
{
	const char *iname = vprof__intern(v, name, strlen(name));
	const char *idso = vprof__intern(v, dso, strlen(dso));
	struct vframe *f;
	size_t slot;

	if (!iname || !idso)
		return -1;
	if ((v->nframes + 1) * 2 > v->frame_slots_cap && grow_frame_slots(v))
		return -1;
	slot = frame_hash(iname, idso, kind) & (v->frame_slots_cap - 1);
	for (; v->frame_slots[slot]; slot = (slot + 1) & (v->frame_slots_cap - 1)) {
		f = &v->frames[v->frame_slots[slot] - 1];
		if (f->name == iname && f->dso == idso && f->kind == kind)
			return v->frame_slots[slot] - 1;
	}
	if (GROW(v->frames, v->frames_cap, v->nframes + 1))
		return -1;
	v->frames[v->nframes] = (struct vframe){ .name = iname, .dso = idso, .kind = kind };
	v->frame_slots[slot] = (uint32_t)v->nframes + 1;
	return (int64_t)v->nframes++;
}

int vprof__add(struct vprof *v, const char *comm, pid_t pid, const uint32_t *frames,
	       uint32_t depth, uint64_t count)
{
	struct vstack *s;
	const char *icomm;
	uint64_t total = v->total;

	if (vprof__add_count(&total, count))
		return -EOVERFLOW;
	icomm = vprof__intern(v, comm, strlen(comm));
	if (!icomm)
		return -ENOMEM;
	if (GROW(v->stacks, v->stacks_cap, v->nstacks + 1))
		return -ENOMEM;
	s = &v->stacks[v->nstacks];
	s->frames = malloc((depth ? depth : 1) * sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	memcpy(s->frames, frames, depth * sizeof(*frames));
	s->depth = depth;
	s->count = count;
	s->comm = icomm;
	s->pid = pid;
	v->nstacks++;
	v->total = total;
	return 0;
}

/* A frame's kind (inline frames are their function's: one row in report) */
static enum frame_kind frame_kind(const struct pframe *f)
{
	if (f->kernel)
		return FK_KERNEL;
	return f->runtime ? f->runtime : f->jit ? FK_JIT : FK_USER;
}

/* One sample of the in-memory profile: its group (--group-by), its event
 * (several events only) and its frames, as folded output would show them. */
static int add_psample(struct vprof *v, const struct profile *p, const struct psample *ps,
		       uint32_t *ids, struct group_root *memo)
{
	const char *group = group_by__root(p, ps, memo);
	char comm[TASK_COMM_LEN];
	uint32_t n = 0, i;
	int64_t id;

	if (group) {
		id = vprof__frame(v, group, "", FK_ROOT);
		if (id < 0)
			return -ENOMEM;
		ids[n++] = (uint32_t)id;
	}
	if (p->nevents > 1 && ps->event < (uint32_t)p->nevents) {
		id = vprof__frame(v, p->events[ps->event].name, "", FK_ROOT);
		if (id < 0)
			return -ENOMEM;
		ids[n++] = (uint32_t)id;
	}
	for (i = 0; i < ps->nframes; i++) {
		const struct pframe *f = ps->frames[i];

		id = vprof__frame(v, f->name, f->mapping, frame_kind(f));
		if (id < 0)
			return -ENOMEM;
		ids[n++] = (uint32_t)id;
	}
	memcpy(comm, ps->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	return vprof__add(v, comm[0] ? comm : "[unknown]", ps->tgid, ids, n, ps->count);
}

int vprof__from_profile(const struct profile *p, struct vprof **out)
{
	struct vprof *v = vprof__new();
	struct group_root memo = { 0 };
	uint32_t *ids = NULL;
	size_t i, max = 0;
	int err = v ? 0 : -ENOMEM;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].nframes > max)
			max = p->samples[i].nframes;
	if (!err) {
		ids = malloc((max + 2) * sizeof(*ids));	/* and the roots */
		err = ids ? 0 : -ENOMEM;
	}
	for (i = 0; !err && i < p->nsamples; i++)
		err = add_psample(v, p, &p->samples[i], ids, &memo);
	free(ids);
	if (err) {
		vprof__free(v);
		return err;
	}
	v->has_comm = true;
	*out = v;
	return 0;
}
