// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Self and total counts per key, in one pass over the stacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/table.h"

static size_t key_hash(const struct vkey *k)
{
	uint64_t h = (uintptr_t)k->comm * 0x9e3779b97f4a7c15ull;

	h = (h ^ (uintptr_t)k->dso) * 0xc2b2ae3d27d4eb4full;
	h = (h ^ ((uintptr_t)k->name + k->kind)) * 0x165667b19e3779f9ull;
	return (size_t)(h ^ (h >> 31));
}

static bool key_eq(const struct vkey *a, const struct vkey *b)
{
	return a->comm == b->comm && a->dso == b->dso && a->name == b->name && a->kind == b->kind;
}

static int grow(struct vtable *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 1024, i;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	struct vrow *rows = realloc(t->rows, nslots / 2 * sizeof(*rows));
	uint64_t *stamp;

	if (rows)
		t->rows = rows;
	stamp = rows ? realloc(t->stamp, nslots / 2 * sizeof(*stamp)) : NULL;
	if (stamp)
		t->stamp = stamp;
	if (!slots || !rows || !stamp) {
		free(slots);
		return -ENOMEM;
	}
	for (i = 0; i < t->nrows; i++) {
		size_t s = key_hash(&t->rows[i].key) & (nslots - 1);

		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	t->cap = nslots / 2;
	return 0;
}

/* The row of key, added if new; -1 on ENOMEM. */
static int64_t row_of(struct vtable *t, const struct vkey *key)
{
	size_t s;

	if (t->nrows + 1 > t->cap && grow(t))
		return -1;
	for (s = key_hash(key) & (t->nslots - 1); t->slots[s]; s = (s + 1) & (t->nslots - 1))
		if (key_eq(&t->rows[t->slots[s] - 1].key, key))
			return t->slots[s] - 1;
	t->rows[t->nrows] = (struct vrow){ .key = *key };
	t->stamp[t->nrows] = 0;
	t->slots[s] = (uint32_t)t->nrows + 1;
	return (int64_t)t->nrows++;
}

static bool hidden(const struct vfilter *f, enum frame_kind kind)
{
	if (kind == FK_ROOT)
		return true;
	return kind == FK_KERNEL ? f->hide_kernel : f->hide_user;
}

static bool passes(const struct vstack *s, const struct vfilter *f)
{
	return (!f->comm || !strcmp(f->comm, s->comm)) && (!f->pid || f->pid == s->pid);
}

/* One stack: every shown frame's key gets the count in its total once, the
 * innermost shown frame's in its self too. */
static int add_stack(struct vtable *t, const struct vprof *v, const struct vstack *s,
		     const bool *want, const struct vfilter *f, uint64_t stack_no)
{
	int64_t row, leaf = -1;
	uint32_t i;

	for (i = 0; i < s->depth; i++) {
		const struct vframe *fr = &v->frames[s->frames[i]];
		struct vkey key = {
			.comm = want[VF_COMM] ? s->comm : NULL,
			.dso = want[VF_DSO] ? fr->dso : NULL,
			.name = want[VF_SYMBOL] ? fr->name : NULL,
			.kind = want[VF_SYMBOL] ? fr->kind : FK_USER,
		};

		if (hidden(f, fr->kind))
			continue;
		row = row_of(t, &key);
		if (row < 0)
			return -ENOMEM;
		if (t->stamp[row] != stack_no + 1) {
			t->stamp[row] = stack_no + 1;
			if (vprof__add_count(&t->rows[row].total, s->count))
				return -EOVERFLOW;
		}
		leaf = row;
	}
	return leaf >= 0 ? vprof__add_count(&t->rows[leaf].self, s->count) : 0;
}

int vtable__build(const struct vprof *v, const enum vfield *fields, int nfields,
		  const struct vfilter *f, struct vtable *t)
{
	bool want[VF_MAX] = { false };
	size_t i;
	int err = 0;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < (size_t)nfields; i++)
		want[fields[i]] = true;
	for (i = 0; !err && i < v->nstacks; i++) {
		const struct vstack *s = &v->stacks[i];

		if (!passes(s, f))
			continue;
		t->stacks++;
		err = vprof__add_count(&t->total, s->count);
		if (!err)
			err = add_stack(t, v, s, want, f, i);
	}
	if (err)
		vtable__free(t);
	return err;
}

static int cmp_name(const struct vrow *a, const struct vrow *b)
{
	int c = strcmp(a->key.name ? a->key.name : "", b->key.name ? b->key.name : "");

	if (!c)
		c = strcmp(a->key.comm ? a->key.comm : "", b->key.comm ? b->key.comm : "");
	if (!c)
		c = strcmp(a->key.dso ? a->key.dso : "", b->key.dso ? b->key.dso : "");
	return c;
}

static int cmp_self(const void *pa, const void *pb)
{
	const struct vrow *a = pa, *b = pb;

	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return cmp_name(a, b);
}

static int cmp_total(const void *pa, const void *pb)
{
	const struct vrow *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	return cmp_name(a, b);
}

void vtable__sort(struct vtable *t, bool by_total)
{
	if (t->nrows)
		qsort(t->rows, t->nrows, sizeof(*t->rows), by_total ? cmp_total : cmp_self);
	/* the hash slots point at the old order: no more lookups after this */
	free(t->slots);
	t->slots = NULL;
	t->nslots = 0;
}

void vtable__free(struct vtable *t)
{
	free(t->rows);
	free(t->slots);
	free(t->stamp);
	memset(t, 0, sizeof(*t));
}

const char *vtable__mark(enum frame_kind kind)
{
	return frame_kind__row(kind)->mark;
}

int vtable__parse_sort(const char *list, enum vfield *fields, const char **bad)
{
	static const struct { const char *name; enum vfield field; } names[] = {
		{ "comm", VF_COMM }, { "dso", VF_DSO }, { "symbol", VF_SYMBOL }, { "sym", VF_SYMBOL },
	};
	static char badbuf[64];
	const char *p = list;
	int n = 0;

	while (*p) {
		size_t len = strcspn(p, ","), i;
		int j, found = -1;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(names[i].name, p, len))
				found = (int)names[i].field;
		for (j = 0; found >= 0 && j < n; j++)
			if (fields[j] == (enum vfield)found)
				found = -2;	/* twice */
		if (found < 0 || n == VF_MAX) {
			snprintf(badbuf, sizeof(badbuf), "%.*s", (int)(len < 60 ? len : 60), p);
			*bad = badbuf;
			return -1;
		}
		fields[n++] = (enum vfield)found;
		p += len + (p[len] == ',');
	}
	if (!n)
		*bad = "";
	return n ? n : -1;
}
