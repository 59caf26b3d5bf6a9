// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading the BPF maps into plain records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "base/grow.h"
#include "sampling/drain.h"

#define BATCH	1024

/* A drain under way: the output and the capacities of its arrays. */
struct reader {
	struct drained *d;
	size_t cap_recs, cap_stacks, cap_frames, nframes;
	size_t *first;			/* per stack: its first frame in d->frames */
	size_t cap_first;
	size_t val_size;		/* the stack map being read: its value size */
	bool last;			/* read only: see drain__collect() */
};

/* One batch of a map's entries, handed to the reader. */
typedef int (*batch_fn)(struct reader *r, const void *keys, const void *vals, __u32 n);

/* bpf_map_lookup_and_delete_batch() walks the hash bucket by bucket and
 * fails with ENOENT, the last entries filled in, once it has passed the
 * end. The generation is ours alone (see session__flip()): reading and
 * emptying it loses nothing. bpf_map_lookup_batch() walks it the same way
 * without freeing each entry. */
static int take_all(int fd, size_t key_size, size_t val_size, batch_fn fn, struct reader *r)
{
	void *keys = malloc(BATCH * key_size), *vals = malloc(BATCH * val_size), *in = NULL;
	__u32 in_batch, out_batch, cnt;
	int err = keys && vals ? 0 : -ENOMEM;
	bool done = false;

	while (!err && !done) {
		cnt = BATCH;
		if (r->last ? bpf_map_lookup_batch(fd, in, &out_batch, keys, vals, &cnt, NULL) :
			      bpf_map_lookup_and_delete_batch(fd, in, &out_batch, keys, vals, &cnt, NULL)) {
			if (errno != ENOENT) {
				err = -errno;
				break;
			}
			done = true;
		}
		err = fn(r, keys, vals, cnt);
		in_batch = out_batch;
		in = &in_batch;
	}
	free(keys);
	free(vals);
	return err;
}

static int add_counts(struct reader *r, const void *keys, const void *vals, __u32 n)
{
	struct drained *d = r->d;
	const struct stack_key *k = keys;
	const uint64_t *v = vals;
	__u32 i;

	if (GROW(d->recs, r->cap_recs, d->n + n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memset(&d->recs[d->n], 0, sizeof(d->recs[d->n]));
		d->recs[d->n].key = k[i];
		d->recs[d->n++].count = v[i];
	}
	return 0;
}

/* Keeps each stack's frames only (not the class's slots). A value is nr,
 * then the class's ips (see struct stack_trace). */
static int add_stacks(struct reader *r, const void *keys, const void *vals, __u32 n)
{
	struct drained *d = r->d;
	const uint64_t *k = keys, *v;
	size_t slots = r->val_size / sizeof(uint64_t) - 1, need = r->nframes, s;
	__u32 i, nr;

	for (i = 0; i < n; i++) {
		v = (const uint64_t *)((const char *)vals + i * r->val_size);
		need += v[0] < slots ? v[0] : slots;
	}
	if (GROW(d->stacks, r->cap_stacks, d->nstacks + n) ||
	    GROW(r->first, r->cap_first, d->nstacks + n) || GROW(d->frames, r->cap_frames, need))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v = (const uint64_t *)((const char *)vals + i * r->val_size);
		nr = v[0] < slots ? (__u32)v[0] : (__u32)slots;
		s = d->nstacks++;
		d->stacks[s] = (struct raw_stack){ .key = k[i], .nr = nr };
		r->first[s] = r->nframes;
		memcpy(d->frames + r->nframes, v + 1, nr * sizeof(*d->frames));
		r->nframes += nr;
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct raw_stack *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* The stack a count refers to; NULL for STACK_NONE, for an empty stack and
 * for one gone from the map (counted). */
static const struct raw_stack *find_stack(struct drained *d, uint64_t key)
{
	struct raw_stack probe = { .key = key };
	const struct raw_stack *s;

	if (key == STACK_NONE)
		return NULL;
	s = bsearch(&probe, d->stacks, d->nstacks, sizeof(*d->stacks), cmp_key);
	if (!s)
		d->stacks_missing++;
	return s && s->nr ? s : NULL;
}

/* Every stack of the generation is read, those no count refers to included
 * (a sample whose other half failed leaves one), so the map is left empty
 * and a run of days never fills it. */
static int link_stacks(struct reader *r)
{
	struct drained *d = r->d;
	size_t i;

	for (i = 0; i < d->nstacks; i++)
		d->stacks[i].ips = d->frames + r->first[i];
	qsort(d->stacks, d->nstacks, sizeof(*d->stacks), cmp_key);
	for (i = 0; i < d->n; i++) {
		d->recs[i].kstack = find_stack(d, d->recs[i].key.kstack);
		d->recs[i].ustack = find_stack(d, d->recs[i].key.ustack);
	}
	d->stack_ids = d->nstacks;
	return 0;
}

int drain__collect(int counts_fd, const int stacks_fds[STACK_CLASSES], bool last,
		   struct drained *d)
{
	struct reader r = { .d = d, .last = last };
	int err, c;

	memset(d, 0, sizeof(*d));
	err = take_all(counts_fd, sizeof(struct stack_key), sizeof(uint64_t), add_counts, &r);
	for (c = 0; !err && c < STACK_CLASSES; c++) {
		r.val_size = STACK_VALUE_SIZE(c);
		err = take_all(stacks_fds[c], sizeof(uint64_t), r.val_size, add_stacks, &r);
	}
	if (!err)
		err = link_stacks(&r);
	free(r.first);
	if (err)
		drain__free(d);
	return err;
}

void drain__free(struct drained *d)
{
	free(d->recs);
	free(d->stacks);
	free(d->frames);
	memset(d, 0, sizeof(*d));
}
