// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Reading the BPF maps into plain records. */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "drain.h"

#define BATCH	1024

static int grow(struct drained *d, size_t *cap, size_t need)
{
	struct raw_count *r;
	size_t c = *cap ? *cap : BATCH;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return 0;
	r = realloc(d->recs, c * sizeof(*r));
	if (!r)
		return -ENOMEM;
	d->recs = r;
	*cap = c;
	return 0;
}

/* bpf_map_lookup_and_delete_batch() walks the hash bucket by bucket and
 * fails with ENOENT, the last entries filled in, once it has passed the
 * end. The generation is ours alone (see session__flip()): reading and
 * emptying it loses nothing. */
static int read_counts(int counts_fd, struct drained *d)
{
	struct stack_key keys[BATCH];
	uint64_t vals[BATCH];
	__u32 in_batch, out_batch, cnt, i;
	size_t cap = 0;
	void *in = NULL;
	bool done;
	int err;

	do {
		cnt = BATCH;
		err = bpf_map_lookup_and_delete_batch(counts_fd, in, &out_batch, keys, vals,
						      &cnt, NULL);
		if (err && errno != ENOENT)
			return -errno;
		done = err != 0;
		if (grow(d, &cap, d->n + cnt))
			return -ENOMEM;
		for (i = 0; i < cnt; i++) {
			memset(&d->recs[d->n], 0, sizeof(d->recs[d->n]));
			d->recs[d->n].key = keys[i];
			d->recs[d->n++].count = vals[i];
		}
		in_batch = out_batch;
		in = &in_batch;
	} while (!done);
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct raw_stack *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* The frames of one stack, read from the map the first time it is asked
 * for. *out is NULL for STACK_NONE and for a stack gone from the map. */
static int get_stack(int stacks_fd, struct drained *d, uint64_t key, const struct raw_stack **out)
{
	struct raw_stack probe = { .key = key }, *s;
	struct stack_trace st;
	void *node;
	uint32_t i;

	*out = NULL;
	if (key == STACK_NONE)
		return 0;
	node = tfind(&probe, &d->stacks, cmp_key);
	if (node) {
		s = *(struct raw_stack **)node;
		*out = s->nr ? s : NULL;
		return 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->key = key;
	if (bpf_map_lookup_elem(stacks_fd, &key, &st) == 0) {
		for (i = 0; i < st.nr && i < MAX_STACK_DEPTH; i++)
			s->ips[i] = st.ips[i];
		s->nr = i;
	} else if (errno == ENOENT) {
		d->stacks_missing++;
	} else {
		free(s);
		return -errno;
	}
	if (!tsearch(s, &d->stacks, cmp_key)) {
		free(s);
		return -ENOMEM;
	}
	*out = s->nr ? s : NULL;
	return 0;
}

/* Empties the stack map, stacks no count refers to included (a sample
 * whose other half failed leaves one), so a run of days never fills it.
 * Keys are listed first: deleting while walking would restart the walk.
 * Returns how many there were, or -errno. */
static long clear_map(int fd)
{
	uint64_t *keys = NULL, *grown, key = 0, last = 0;
	size_t n = 0, cap = 0, i;
	void *prev = NULL;
	long err = 0;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			grown = realloc(keys, cap * sizeof(*keys));
			if (!grown) {
				free(keys);
				return -ENOMEM;
			}
			keys = grown;
		}
		keys[n++] = key;
		last = key;
		prev = &last;
	}
	for (i = 0; i < n; i++) {
		if (bpf_map_delete_elem(fd, &keys[i]) && errno != ENOENT && !err)
			err = -errno;
	}
	free(keys);
	return err ? err : (long)n;
}

int drain__collect(int counts_fd, int stacks_fd, struct drained *d)
{
	struct raw_count *r;
	long n = 0;
	size_t i;
	int err;

	memset(d, 0, sizeof(*d));
	err = read_counts(counts_fd, d);
	for (i = 0; !err && i < d->n; i++) {
		r = &d->recs[i];
		err = get_stack(stacks_fd, d, r->key.kstack, &r->kstack);
		if (!err)
			err = get_stack(stacks_fd, d, r->key.ustack, &r->ustack);
	}
	if (!err)
		n = clear_map(stacks_fd);
	if (!err && n < 0)
		err = (int)n;
	if (err) {
		drain__free(d);
		return err;
	}
	d->stack_ids = (size_t)n;
	return 0;
}

void drain__free(struct drained *d)
{
	free(d->recs);
	tdestroy(d->stacks, free);
	memset(d, 0, sizeof(*d));
}
