// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The in-memory profile: symbolized samples, frame names interned once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "hash_bytes.h"

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].frames);
	free(p->samples);
	for (i = 0; i < p->names.cap; i++)
		free(p->names.slots[i]);
	free(p->names.slots);
	free(p->names.owned);
	free(p);
}

/* Interning is a hash set: a search tree took 37 % of an end of run (four
 * lookups a frame, each a dozen strcmp). The slot that holds name, or the
 * free one where it would go (linear probing). */
static char **interned_slot(const struct interned *in, const char *name)
{
	size_t mask = in->cap - 1, i = hash_bytes(name, strlen(name)) & mask;

	while (in->slots[i] && strcmp(in->slots[i], name))
		i = (i + 1) & mask;
	return &in->slots[i];
}

/* The slot of the copy at address s, or the free one where it would go. */
static const char **owned_slot(const struct interned *in, const char *s)
{
	size_t mask = in->cap - 1, i = (size_t)(((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 32) & mask;

	while (in->owned[i] && in->owned[i] != s)
		i = (i + 1) & mask;
	return &in->owned[i];
}

static int interned_grow(struct interned *in)
{
	struct interned grown = { .cap = in->cap ? in->cap * 2 : 1024, .n = in->n };
	size_t i;

	grown.slots = calloc(grown.cap, sizeof(*grown.slots));
	grown.owned = calloc(grown.cap, sizeof(*grown.owned));
	if (!grown.slots || !grown.owned) {
		free(grown.slots);
		free(grown.owned);
		return -ENOMEM;
	}
	for (i = 0; i < in->cap; i++)
		if (in->slots[i]) {
			*interned_slot(&grown, in->slots[i]) = in->slots[i];
			*owned_slot(&grown, in->slots[i]) = in->slots[i];
		}
	free(in->slots);
	free(in->owned);
	*in = grown;
	return 0;
}

static const char *intern(struct profile *p, const char *name)
{
	struct interned *in = &p->names;
	char **slot;

	if (in->cap && *owned_slot(in, name))
		return name;	/* one of ours */
	if (2 * (in->n + 1) > in->cap && interned_grow(in))
		return NULL;
	slot = interned_slot(in, name);
	if (!*slot) {
		*slot = strdup(name);
		if (!*slot)
			return NULL;
		*owned_slot(in, *slot) = *slot;
		in->n++;
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

static struct psample *new_sample(struct profile *p)
{
	if (p->nsamples == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct psample *grown = realloc(p->samples, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		p->samples = grown;
		p->cap = cap;
	}
	return &p->samples[p->nsamples];
}

int profile__add(struct profile *p, uint32_t event, const char *comm, pid_t tgid, pid_t pid,
		 uint64_t count, const struct pframe *frames, uint32_t nframes)
{
	uint64_t scale = event < MAX_EVENTS && p->events[event].scale ? p->events[event].scale : 1;
	struct psample *s = new_sample(p);
	uint32_t i;

	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->frames = calloc(nframes ? nframes : 1, sizeof(*s->frames));
	if (!s->frames)
		return -ENOMEM;
	for (i = 0; i < nframes; i++) {
		struct pframe *f = &s->frames[i];
		const struct pframe *in = &frames[i], *in0 = i ? &frames[i - 1] : in;
		const struct pframe *f0 = i ? &s->frames[i - 1] : NULL;

		f->kernel = frames[i].kernel;
		f->inlined = frames[i].inlined;
		f->python = frames[i].python;
		f->line = frames[i].line;
		f->addr = frames[i].addr;
		f->map_start = frames[i].map_start;
		f->map_limit = frames[i].map_limit;
		f->map_off = frames[i].map_off;
		f->file = intern_like(p, in->file, in0->file, f0 ? f0->file : NULL);
		f->name = intern(p, in->name);
		f->mapping = intern_like(p, in->mapping, in0->mapping, f0 ? f0->mapping : NULL);
		f->build_id = intern_like(p, in->build_id, in0->build_id, f0 ? f0->build_id : NULL);
		if (!f->name || !f->mapping || !f->build_id || !f->file) {
			free(s->frames);
			return -ENOMEM;
		}
	}
	strncpy(s->comm, comm, sizeof(s->comm) - 1);
	s->tgid = tgid;
	s->pid = pid;
	s->event = event;
	s->raw = count;
	s->count = count * scale;
	s->nframes = nframes;
	p->nsamples++;
	return 0;
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

	for (k = STAT_SAMPLES + 1; k <= STAT_LOST_COUNTS_FULL; k++)
		lost += p->stats.bpf[k];
	return lost;
}

int profile__merge(struct profile *dst, const struct profile *src)
{
	const struct psample *s;
	int k, err;

	for (s = src->samples; s < src->samples + src->nsamples; s++) {
		err = profile__add(dst, s->event, s->comm, s->tgid, s->pid, s->raw, s->frames,
				   s->nframes);
		if (err)
			return err;
	}
	for (k = 0; k < STAT_MAX; k++)
		dst->stats.bpf[k] += src->stats.bpf[k];
	dst->stats.frames += src->stats.frames;
	dst->stats.unresolved += src->stats.unresolved;
	dst->stats.stacks_missing += src->stats.stacks_missing;
	dst->stats.tracking_lost += src->stats.tracking_lost;
	dst->stats.files_over_limit += src->stats.files_over_limit;
	dst->stats.files_dwarf_over += src->stats.files_dwarf_over;
	dst->stats.jit_malformed += src->stats.jit_malformed;
	dst->stats.jit_over_cap += src->stats.jit_over_cap;
	dst->stats.duration += src->stats.duration;
	if (src->stats.stack_ids > dst->stats.stack_ids)
		dst->stats.stack_ids = src->stats.stack_ids;
	if (src->stats.footprint.set)
		dst->stats.footprint = src->stats.footprint;
	return 0;
}
