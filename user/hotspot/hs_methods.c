// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Interpreted methods named while their JVMs live (hs_methods.h). */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <linux/types.h>

#include "base/grow.h"
#include "bpf/profile.h"
#include "hotspot/hs_code.h"
#include "hotspot/hs_methods.h"

struct named_method {
	struct hs_method_key k;		/* first: the tree's key */
	char *name;			/* NULL: could not be named */
};

struct hs_methods {
	int map_fd;
	volatile uint64_t *noted;
	uint64_t walked;		/* noted's value when the map was last emptied */
	void *tree;			/* of struct named_method */
	size_t count;
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct hs_method_key *a = pa, *b = pb;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start_time != b->start_time)
		return a->start_time < b->start_time ? -1 : 1;
	return (a->method > b->method) - (a->method < b->method);
}

struct hs_methods *hs_methods__new(int map_fd, volatile uint64_t *noted)
{
	struct hs_methods *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->map_fd = map_fd;
	m->noted = noted;
	return m;
}

static void free_named(void *p)
{
	struct named_method *n = p;

	free(n->name);
	free(n);
}

void hs_methods__free(struct hs_methods *m)
{
	if (!m)
		return;
	tdestroy(m->tree, free_named);
	free(m);
}

/* One method, named once (or known not to be). */
static void name_one(struct hs_methods *m, const struct hs_method_key *k,
		     hs_method_name_fn name_of, void *ctx)
{
	char name[HS_JAVA_NAME_MAX];
	struct named_method *n;

	if (tfind(k, &m->tree, cmp_key) || m->count >= HS_METHODS_MAX)
		return;
	n = calloc(1, sizeof(*n));
	if (!n)
		return;
	n->k = *k;
	if (!name_of(ctx, (pid_t)k->tgid, k->method, name, sizeof(name)))
		n->name = strdup(name);
	if (!tsearch(n, &m->tree, cmp_key)) {
		free_named(n);
		return;
	}
	m->count++;
}

void hs_methods__poll(struct hs_methods *m, hs_method_name_fn name_of, void *ctx)
{
	uint64_t noted = *m->noted;
	struct hs_method_key *keys;
	size_t n = 0;

	if (noted == m->walked)	/* nothing new: no scan of the map */
		return;
	keys = malloc(HS_METHODS_POLL_MAX * sizeof(*keys));
	if (!keys)
		return;
	/* collected first: deleting while walking would restart the walk */
	while (n < HS_METHODS_POLL_MAX &&
	       !bpf_map_get_next_key(m->map_fd, n ? &keys[n - 1] : NULL, &keys[n]))
		n++;
	for (size_t i = 0; i < n; i++) {
		name_one(m, &keys[i], name_of, ctx);
		bpf_map_delete_elem(m->map_fd, &keys[i]);
	}
	if (n < HS_METHODS_POLL_MAX)
		m->walked = noted;
	free(keys);
}

const char *hs_methods__find(const struct hs_methods *m, pid_t tgid, uint64_t start_time,
			     uint64_t method)
{
	struct hs_method_key k = { .tgid = (__u32)tgid, .start_time = start_time, .method = method };
	struct named_method **n = m ? tfind(&k, &m->tree, cmp_key) : NULL;

	return n ? (*n)->name : NULL;
}

struct forget_ctx {
	pid_t tgid;
	struct named_method **drop;
	size_t ndrop, cap;
};

static void forget_visit(const void *node, VISIT which, void *arg)
{
	struct forget_ctx *f = arg;
	struct named_method *n = *(struct named_method *const *)node;

	if ((which == postorder || which == leaf) && n->k.tgid == (__u32)f->tgid &&
	    !GROW(f->drop, f->cap, f->ndrop + 1))
		f->drop[f->ndrop++] = n;
}

void hs_methods__forget(struct hs_methods *m, pid_t tgid)
{
	struct forget_ctx f = { .tgid = tgid };

	twalk_r(m->tree, forget_visit, &f);
	for (size_t i = 0; i < f.ndrop; i++) {
		tdelete(f.drop[i], &m->tree, cmp_key);
		free_named(f.drop[i]);
		m->count--;
	}
	free(f.drop);
}
