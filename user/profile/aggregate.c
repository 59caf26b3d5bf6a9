// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The in-memory profile: symbolized samples, frame names interned once. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profile/aggregate.h"
#include "profile/counters.h"
#include "base/hash_bytes.h"

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

/* How a set's members hash and compare with a key of their kind. */
struct pset_kind {
	uint64_t (*hash)(const void *key);
	bool (*same)(const void *member, const void *key);
};

static void pset_free(struct pset *s, bool members)
{
	for (size_t i = 0; members && i < s->cap; i++)
		free(s->slots[i]);
	free(s->slots);
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].frames);
	free(p->samples);
	pset_free(&p->names, true);
	pset_free(&p->owned, false);	/* the names' copies */
	pset_free(&p->frames, true);
	pset_free(&p->cgroups, true);
	free(p);
}

/* The slot that holds key, or the free one where it would go. (Interning
 * in a search tree took 37 % of an end of run: four lookups a frame, each
 * a dozen strcmp.) */
static void **pset_slot(const struct pset *s, const struct pset_kind *k, const void *key)
{
	size_t mask = s->cap - 1, i = (size_t)(k->hash(key) >> 32) & mask;

	while (s->slots[i] && !k->same(s->slots[i], key))
		i = (i + 1) & mask;
	return &s->slots[i];
}

/* Room for one more member. Returns 0 or -ENOMEM. */
static int pset_room(struct pset *s, const struct pset_kind *k)
{
	struct pset grown = { .cap = s->cap ? s->cap * 2 : 1024, .n = s->n };

	if (2 * (s->n + 1) <= s->cap)
		return 0;
	grown.slots = calloc(grown.cap, sizeof(*grown.slots));
	if (!grown.slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			*pset_slot(&grown, k, s->slots[i]) = s->slots[i];
	free(s->slots);
	*s = grown;
	return 0;
}

static uint64_t string_hash(const void *key)
{
	return hash_bytes(key, strlen(key));
}

static bool same_string(const void *member, const void *key)
{
	return !strcmp(member, key);
}

static uint64_t address_hash(const void *key)
{
	return addr_hash((uintptr_t)key);
}

static bool same_address(const void *member, const void *key)
{
	return member == key;
}

static const struct pset_kind by_string = { string_hash, same_string };
static const struct pset_kind by_address = { address_hash, same_address };

static const char *intern(struct profile *p, const char *name)
{
	void **slot;

	if (p->owned.cap && *pset_slot(&p->owned, &by_address, name))
		return name;	/* one of ours */
	if (pset_room(&p->names, &by_string) || pset_room(&p->owned, &by_address))
		return NULL;
	slot = pset_slot(&p->names, &by_string, name);
	if (!*slot) {
		char *copy = strdup(name);

		if (!copy)
			return NULL;
		*slot = copy;
		p->names.n++;
		*pset_slot(&p->owned, &by_address, copy) = copy;
		p->owned.n++;
	}
	return *slot;
}

const char *profile__intern(struct profile *p, const char *s)
{
	return intern(p, s ? s : "");
}

/* A frame's string (NULL: "") interned; one that is the frame before's,
 * by pointer (frames of one file share theirs), is that frame's copy. */
static const char *intern_like(struct profile *p, const char *s, const char *prev,
			       const char *prev_copy)
{
	return prev_copy && s == prev ? prev_copy : profile__intern(p, s);
}

/* Frames hash and compare by their fields: the strings are interned, so
 * equal strings are equal pointers. */
static uint64_t frame_hash(const void *key)
{
	const struct pframe *f = key;
	uint64_t h = hash_step(hash_step(hash_step(0, (uintptr_t)f->name), (uintptr_t)f->mapping),
			       (uintptr_t)f->file);
	uint64_t flags = (uint64_t)f->kernel | (uint64_t)f->inlined << 1 | (uint64_t)f->runtime << 4 |
			 (uint64_t)f->jit << 3;

	h = hash_step(hash_step(hash_step(h, f->addr), f->map_start), f->line | flags << 32);
	h ^= h >> 29;
	return h * 0xbf58476d1ce4e5b9ULL;
}

static bool same_frame(const void *member, const void *key)
{
	const struct pframe *a = member, *b = key;

	return a->name == b->name && a->mapping == b->mapping && a->build_id == b->build_id &&
	       a->file == b->file && a->line == b->line && a->start_line == b->start_line &&
	       a->addr == b->addr &&
	       a->map_start == b->map_start && a->map_limit == b->map_limit &&
	       a->map_off == b->map_off && a->kernel == b->kernel && a->inlined == b->inlined &&
	       a->runtime == b->runtime && a->jit == b->jit;
}

static const struct pset_kind by_content = { frame_hash, same_frame };

static uint64_t cgroup_hash(const void *key)
{
	return addr_hash(*(const uint64_t *)key);
}

static bool same_cgroup(const void *member, const void *key)
{
	return ((const struct pcgroup *)member)->id == *(const uint64_t *)key;
}

/* members are struct pcgroup, keys their id (its first member) */
static const struct pset_kind by_cgroup_id = { cgroup_hash, same_cgroup };

/* The profile's entry of the cgroup src describes (its path: a name found
 * already, or NULL), made on first sight; NULL for id 0 and past
 * max_cgroups (counted), or out of memory (*err). */
static const struct pcgroup *cgroup_of(struct profile *p, const struct pcgroup *src, int *err)
{
	const char *path = src->path;
	uint64_t id = src->id;
	struct pcgroup *cg = NULL;

	if (!id)
		return NULL;
	if (p->cgroups.cap)
		cg = *pset_slot(&p->cgroups, &by_cgroup_id, &id);
	if (cg) {
		if (!cg->path && path && !(cg->path = intern(p, path)))
			*err = -ENOMEM;
		return cg;
	}
	if (p->cgroups.n >= (p->max_cgroups ? p->max_cgroups : PROFILE_MAX_CGROUPS)) {
		p->stats.cgroups_merged++;
		return NULL;
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg || pset_room(&p->cgroups, &by_cgroup_id) || (path && !(cg->path = intern(p, path)))) {
		free(cg);
		*err = -ENOMEM;
		return NULL;
	}
	cg->id = id;
	cg->tgid = src->tgid;
	*pset_slot(&p->cgroups, &by_cgroup_id, &id) = cg;
	p->cgroups.n++;
	p->stats.cgroups = p->cgroups.n;
	return cg;
}

int profile__each_cgroup(struct profile *p, int (*fn)(struct pcgroup *cg, void *arg), void *arg)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < p->cgroups.cap; i++)
		if (p->cgroups.slots[i])
			ret = fn(p->cgroups.slots[i], arg);
	return ret;
}

/* The profile's copy of f (its strings interned already). */
static const struct pframe *intern_frame(struct profile *p, const struct pframe *f)
{
	void **slot;

	if (pset_room(&p->frames, &by_content))
		return NULL;
	slot = pset_slot(&p->frames, &by_content, f);
	if (!*slot) {
		struct pframe *copy = malloc(sizeof(*copy));

		if (!copy)
			return NULL;
		*copy = *f;
		*slot = copy;
		p->frames.n++;
	}
	return *slot;
}

/* in, with its strings the profile's copies; prev_in and prev: the frame
 * before it as given and as copied (NULL for the first). */
static const struct pframe *copy_frame(struct profile *p, const struct pframe *in,
				       const struct pframe *prev_in, const struct pframe *prev)
{
	struct pframe f = *in;

	f.file = intern_like(p, in->file, prev ? prev_in->file : NULL, prev ? prev->file : NULL);
	f.name = profile__intern(p, in->name);
	f.mapping = intern_like(p, in->mapping, prev ? prev_in->mapping : NULL,
				prev ? prev->mapping : NULL);
	f.build_id = intern_like(p, in->build_id, prev ? prev_in->build_id : NULL,
				 prev ? prev->build_id : NULL);
	if (!f.name || !f.mapping || !f.build_id || !f.file)
		return NULL;
	return intern_frame(p, &f);
}

static struct psample *new_sample(struct profile *p)
{
	if (GROW(p->samples, p->cap, p->nsamples + 1))
		return NULL;
	return &p->samples[p->nsamples];
}

/* A new sample, its frames to be filled in. */
static struct psample *add_sample(struct profile *p, uint32_t event, const char *comm, pid_t tgid,
				  pid_t pid, uint64_t count, uint32_t nframes)
{
	uint64_t scale = event < MAX_EVENTS && p->events[event].scale ? p->events[event].scale : 1;
	struct psample *s = new_sample(p);

	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->frames = calloc(nframes ? nframes : 1, sizeof(*s->frames));
	if (!s->frames)
		return NULL;
	strncpy(s->comm, comm, sizeof(s->comm) - 1);
	s->tgid = tgid;
	s->pid = pid;
	s->event = event;
	s->raw = count;
	s->count = count * scale;
	s->nframes = nframes;
	return s;
}

/* A sample with n frames: arr's, or (arr NULL) those ptrs points at; in
 * cgroup cg (id 0: none; path: its name in the profile it came from). */
static int add_stack(struct profile *p, uint32_t event, const char *comm, pid_t tgid, pid_t pid,
		     const struct pcgroup *cg, uint64_t count, const struct pframe *arr,
		     const struct pframe *const *ptrs, uint32_t n)
{
	struct psample *s = add_sample(p, event, comm, tgid, pid, count, n);
	const struct pframe *in, *prev_in = NULL;
	int err = 0;

	if (!s)
		return -ENOMEM;
	s->cgroup = cgroup_of(p, cg, &err);
	if (err) {
		free(s->frames);
		return err;
	}
	for (uint32_t i = 0; i < n; i++, prev_in = in) {
		in = arr ? &arr[i] : ptrs[i];
		s->frames[i] = copy_frame(p, in, prev_in, i ? s->frames[i - 1] : NULL);
		if (!s->frames[i]) {
			free(s->frames);
			return -ENOMEM;
		}
	}
	p->nsamples++;
	return 0;
}

int profile__add(struct profile *p, uint32_t event, const char *comm, pid_t tgid, pid_t pid,
		 uint64_t cgroup_id, uint64_t count, const struct pframe *frames,
		 uint32_t nframes)
{
	struct pcgroup cg = { .id = cgroup_id, .tgid = tgid };

	return add_stack(p, event, comm, tgid, pid, &cg, count, frames, NULL, nframes);
}

uint64_t profile__total(const struct profile *p)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		total += p->samples[i].raw;
	return total;
}

uint64_t profile__event_total(const struct profile *p, uint32_t event)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (p->samples[i].event == event)
			total += p->samples[i].count;
	return total;
}

uint64_t profile__lost(const struct profile *p)
{
	uint64_t lost = 0;
	int k;

	for (k = STAT_LOST_FIRST; k <= STAT_LOST_LAST; k++)
		lost += p->stats.bpf[k];
	return lost;
}

int profile__merge(struct profile *dst, const struct profile *src)
{
	static const struct pcgroup none;
	const struct psample *s;
	int k, err;

	for (s = src->samples; s < src->samples + src->nsamples; s++) {
		/* src's frames copied into dst's */
		err = add_stack(dst, s->event, s->comm, s->tgid, s->pid, s->cgroup ? s->cgroup : &none,
				s->raw, NULL, s->frames, s->nframes);
		if (err)
			return err;
	}
	for (k = 0; k < STAT_MAX; k++)
		dst->stats.bpf[k] += src->stats.bpf[k];
	dst->stats.frames += src->stats.frames;
	dst->stats.unresolved += src->stats.unresolved;
	dst->stats.stacks_missing += src->stats.stacks_missing;
	dst->stats.tracking_lost += src->stats.tracking_lost;
	dst->stats.tracking_over_budget += src->stats.tracking_over_budget;
	if (src->stats.flooder.pid)
		dst->stats.flooder = src->stats.flooder;
	dst->stats.duration += src->stats.duration;
	counters__merge(&dst->stats, &src->stats);
	if (src->stats.stack_ids > dst->stats.stack_ids)
		dst->stats.stack_ids = src->stats.stack_ids;
	for (k = 0; k < UNNAMED_MAX; k++)
		dst->stats.unnamed[k] += src->stats.unnamed[k];
	if (src->stats.footprint.set)
		dst->stats.footprint = src->stats.footprint;
	if (!dst->stats.main_pid)
		dst->stats.main_pid = src->stats.main_pid;
	return 0;
}
