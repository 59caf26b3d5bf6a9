// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Stacks sorted by their frames' names, then merged in one pass: each stack
 * shares its prefix with the previous one, and the nodes it opens come out
 * in pre-order, children in name order as flamegraph.pl draws them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash_bytes.h"
#include "render/fgtree.h"

/* A stack to merge: frame indices of the AFTER profile, root first. */
struct path {
	uint32_t *frames;
	uint32_t depth;
	uint64_t count;
};

static const struct vprof *sort_v;	/* qsort has no context argument in C17 */

static int cmp_path(const void *pa, const void *pb)
{
	const struct path *a = pa, *b = pb;
	uint32_t i, n = a->depth < b->depth ? a->depth : b->depth;

	for (i = 0; i < n; i++) {
		uint32_t fa = a->frames[i], fb = b->frames[i];
		int c;

		if (fa == fb)
			continue;
		c = strcmp(sort_v->frames[fa].name, sort_v->frames[fb].name);
		if (c)
			return c;
		return fa < fb ? -1 : 1;
	}
	return (a->depth > b->depth) - (a->depth < b->depth);
}

static int add_node(struct fgtree *t, uint32_t frame, uint32_t depth)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		uint32_t *fr = realloc(t->frame, cap * sizeof(*fr)), *dp;
		uint64_t *val, *bef;

		if (fr)
			t->frame = fr;
		dp = fr ? realloc(t->depth, cap * sizeof(*dp)) : NULL;
		if (dp)
			t->depth = dp;
		val = dp ? realloc(t->value, cap * sizeof(*val)) : NULL;
		if (val)
			t->value = val;
		bef = val ? realloc(t->before, cap * sizeof(*bef)) : NULL;
		if (!bef)
			return -ENOMEM;
		t->before = bef;
		t->cap = cap;
	}
	t->frame[t->n] = frame;
	t->depth[t->n] = depth;
	t->value[t->n] = t->before[t->n] = 0;
	if (depth > t->max_depth)
		t->max_depth = depth;
	t->n++;
	return 0;
}

/* The stack of v (or of before, its frames translated into v's) as a path
 * under the command's frame. Returns 0, 1 (filtered out) or -ENOMEM. */
static int make_path(struct vprof *v, const struct vprof *src, const struct vstack *s,
		     const struct vfilter *f, struct path *p)
{
	uint32_t i, n = 0;
	int64_t id;

	if ((f->comm && strcmp(f->comm, s->comm)) || (f->pid && f->pid != s->pid))
		return 1;
	p->frames = malloc((s->depth + 1) * sizeof(*p->frames));
	if (!p->frames)
		return -ENOMEM;
	id = src->has_comm ? vprof__frame(v, s->comm[0] ? s->comm : "[unknown]", "", FK_ROOT) : 0;
	if (src->has_comm && id >= 0)
		p->frames[n++] = (uint32_t)id;
	for (i = 0; id >= 0 && i < s->depth; i++) {
		const struct vframe *fr = &src->frames[s->frames[i]];

		if ((fr->kind == FK_KERNEL && f->hide_kernel) ||
		    (fr->kind != FK_KERNEL && fr->kind != FK_ROOT && f->hide_user))
			continue;
		id = src == v ? (int64_t)s->frames[i] : vprof__frame(v, fr->name, fr->dso, fr->kind);
		if (id < 0)
			break;
		p->frames[n++] = (uint32_t)id;
	}
	if (id < 0) {
		free(p->frames);
		p->frames = NULL;
		return -ENOMEM;
	}
	p->depth = n;
	p->count = s->count;
	return 0;
}

static int collect_paths(struct vprof *v, const struct vprof *src, const struct vfilter *f,
			 struct path *paths, size_t *n)
{
	size_t i;
	int err;

	for (i = 0; i < src->nstacks; i++) {
		err = make_path(v, src, &src->stacks[i], f, &paths[*n]);
		if (err < 0)
			return err;
		if (!err)
			(*n)++;
	}
	return 0;
}

/* Merges the sorted paths: open[d] is the node at depth d of the current
 * path; a path opens new nodes past what it shares with the previous one. */
static int merge(struct fgtree *t, const struct path *paths, size_t n)
{
	size_t *open = NULL, i, cap = 0;
	const struct path *prev = NULL;
	uint32_t d, common;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		const struct path *p = &paths[i];

		if (GROW(open, cap, p->depth + 1)) {
			err = -ENOMEM;
			break;
		}
		open[0] = 0;
		for (common = 0; prev && common < p->depth && common < prev->depth &&
		     p->frames[common] == prev->frames[common]; common++)
			;
		for (d = common; !err && d < p->depth; d++) {
			open[d + 1] = t->n;
			err = add_node(t, p->frames[d], d + 1);
		}
		for (d = 0; !err && d <= p->depth; d++)
			err = vprof__add_count(&t->value[open[d]], p->count);
		if (!err)
			err = vprof__add_count(&t->total, p->count);
		prev = p;
	}
	free(open);
	return err;
}

/* (parent node, frame) -> child node, for BEFORE's walks down the tree. */
struct child_index {
	uint64_t *keys;		/* parent << 32 | frame, + 1; 0 free */
	uint32_t *nodes;
	size_t cap;
};

static size_t child_slot(const struct child_index *ci, uint64_t key)
{
	size_t s = addr_slot(key, ci->cap - 1);

	while (ci->keys[s] && ci->keys[s] != key)
		s = addr_slot_next(s, ci->cap - 1);
	return s;
}

static int index_children(const struct fgtree *t, struct child_index *ci)
{
	size_t *parent_at = calloc(t->max_depth + 2, sizeof(*parent_at)), i, s;

	ci->cap = 1024;
	while (ci->cap < t->n * 2)
		ci->cap *= 2;
	ci->keys = calloc(ci->cap, sizeof(*ci->keys));
	ci->nodes = malloc(ci->cap * sizeof(*ci->nodes));
	if (!parent_at || !ci->keys || !ci->nodes) {
		free(parent_at);
		return -ENOMEM;
	}
	for (i = 1; i < t->n; i++) {
		uint64_t key = ((uint64_t)parent_at[t->depth[i] - 1] << 32 | t->frame[i]) + 1;

		parent_at[t->depth[i]] = i;
		s = child_slot(ci, key);
		ci->keys[s] = key;
		ci->nodes[s] = (uint32_t)i;
	}
	free(parent_at);
	return 0;
}

/* Each BEFORE path weighs the nodes of its longest prefix AFTER has, as
 * difffolded's second column does. */
static int weigh_before(struct fgtree *t, const struct child_index *ci, const struct path *p)
{
	uint64_t node = 0;
	uint32_t d;
	int err = vprof__add_count(&t->before[0], p->count);

	if (!err)
		err = vprof__add_count(&t->total_before, p->count);
	for (d = 0; !err && d < p->depth; d++) {
		size_t s = child_slot(ci, (node << 32 | p->frames[d]) + 1);

		if (!ci->keys[s])
			break;
		node = ci->nodes[s];
		err = vprof__add_count(&t->before[node], p->count);
	}
	return err;
}

static void free_paths(struct path *paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i].frames);
	free(paths);
}

static int add_before(struct fgtree *t, struct vprof *v, const struct vprof *before,
		      const struct vfilter *f)
{
	struct path *paths = calloc(before->nstacks + 1, sizeof(*paths));
	struct child_index ci = { 0 };
	size_t n = 0, i;
	int err = paths ? collect_paths(v, before, f, paths, &n) : -ENOMEM;

	if (!err)
		err = index_children(t, &ci);
	for (i = 0; !err && i < n; i++)
		err = weigh_before(t, &ci, &paths[i]);
	free(ci.keys);
	free(ci.nodes);
	free_paths(paths, n);
	return err;
}

int fgtree__build(struct vprof *v, const struct vprof *before, const struct vfilter *f,
		  struct fgtree *t)
{
	struct path *paths = calloc(v->nstacks + 1, sizeof(*paths));
	int64_t all = vprof__frame(v, "all", "", FK_ROOT);
	size_t n = 0;
	int err = paths && all >= 0 ? 0 : -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!err)
		err = collect_paths(v, v, f, paths, &n);
	if (!err) {
		sort_v = v;
		qsort(paths, n, sizeof(*paths), cmp_path);
		t->all_frame = (uint32_t)all;
		err = add_node(t, (uint32_t)all, 0);
	}
	if (!err)
		err = merge(t, paths, n);
	free_paths(paths, n);
	if (!err && before)
		err = add_before(t, v, before, f);
	if (err)
		fgtree__free(t);
	return err;
}

void fgtree__free(struct fgtree *t)
{
	free(t->frame);
	free(t->depth);
	free(t->value);
	free(t->before);
	memset(t, 0, sizeof(*t));
}
