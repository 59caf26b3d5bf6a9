// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The in-memory profile: symbolized samples, frame names interned once. */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"

struct profile *profile__new(void)
{
	return calloc(1, sizeof(struct profile));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

void profile__free(struct profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].frames);
	free(p->samples);
	tdestroy(p->names, free);
	free(p);
}

static const char *intern(struct profile *p, const char *name)
{
	void *node = tfind(name, &p->names, cmp_str);
	char *copy;

	if (node)
		return *(const char **)node;
	copy = strdup(name);
	if (!copy)
		return NULL;
	node = tsearch(copy, &p->names, cmp_str);
	if (!node) {
		free(copy);
		return NULL;
	}
	return copy;
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

		f->kernel = frames[i].kernel;
		f->inlined = frames[i].inlined;
		f->python = frames[i].python;
		f->line = frames[i].line;
		f->addr = frames[i].addr;
		f->map_start = frames[i].map_start;
		f->map_limit = frames[i].map_limit;
		f->map_off = frames[i].map_off;
		f->file = intern(p, frames[i].file ? frames[i].file : "");
		f->name = intern(p, frames[i].name);
		f->mapping = intern(p, frames[i].mapping ? frames[i].mapping : "");
		f->build_id = intern(p, frames[i].build_id ? frames[i].build_id : "");
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
	dst->stats.jit_malformed += src->stats.jit_malformed;
	dst->stats.jit_over_cap += src->stats.jit_over_cap;
	dst->stats.duration += src->stats.duration;
	if (src->stats.stack_ids > dst->stats.stack_ids)
		dst->stats.stack_ids = src->stats.stack_ids;
	if (src->stats.footprint.set)
		dst->stats.footprint = src->stats.footprint;
	return 0;
}
