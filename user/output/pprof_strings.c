// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pprof builder's interned tables and its string table (pprof_priv.h). */
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/utf8_safe.h"
#include "output/pprof_priv.h"

int pp_table__cmp(const void *pa, const void *pb)
{
	const struct pp_key *a = pa, *b = pb;

	if (a->a != b->a)
		return (uintptr_t)a->a < (uintptr_t)b->a ? -1 : 1;
	if (a->b != b->b)
		return (uintptr_t)a->b < (uintptr_t)b->b ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if (a->z != b->z)
		return a->z < b->z ? -1 : 1;
	return (a->w > b->w) - (a->w < b->w);
}

static int cmp_string(const void *pa, const void *pb)
{
	return strcmp(((const struct pp_key *)pa)->a, ((const struct pp_key *)pb)->a);
}

/* Finds key in tree, or inserts a copy with id = next; 0 on error. */
uint64_t pp_table__find_or_add(struct builder *b, void **tree, const struct pp_key *key,
			      int (*cmp)(const void *, const void *), uint64_t next, bool *added)
{
	struct pp_key *e;
	void *node = tfind(key, tree, cmp);

	*added = false;
	if (node)
		return (*(struct pp_key **)node)->id;
	e = malloc(sizeof(*e));
	if (!e || (*e = *key, e->id = next, !tsearch(e, tree, cmp))) {
		free(e);
		b->err = -ENOMEM;
		return 0;
	}
	*added = true;
	return next;
}

/* The index of s in the string table; s is kept by pointer (it must
 * outlive the write), or, not well-formed UTF-8, by a repaired copy. */
int64_t pp_strings__index(struct builder *b, const char *s)
{
	struct pp_key key = { .a = s };
	size_t n = b->prof.n_string_table;
	bool added;
	uint64_t id;

	if (!utf8_safe__valid(s))
		return pp_strings__take(b, strdup(s));
	if (GROW(b->prof.string_table, b->cap_str, n + 1)) {
		b->err = -ENOMEM;
		return 0;
	}
	id = pp_table__find_or_add(b, &b->strings, &key, cmp_string, n, &added);
	if (added)
		b->prof.string_table[b->prof.n_string_table++] = (char *)s;
	return (int64_t)id;
}

/* The index of copy, a string made here, which the builder then owns
 * (freed now if the table had it); made well-formed UTF-8 first
 * (base/utf8_safe.h: the same repair as OTLP's). */
int64_t pp_strings__take(struct builder *b, char *copy)
{
	char *safe = copy && !utf8_safe__valid(copy) ? utf8_safe__dup(copy) : copy;
	int64_t idx;

	if (safe != copy)
		free(copy);
	if (!safe || GROW(b->owned, b->cap_owned, b->n_owned + 1)) {
		free(safe);
		b->err = -ENOMEM;
		return 0;
	}
	idx = pp_strings__index(b, safe);
	if (b->err || b->prof.string_table[idx] != safe)
		free(safe);	/* seen before: the table's copy is it */
	else
		b->owned[b->n_owned++] = safe;
	return b->err ? 0 : idx;
}

/* The index of the first len bytes of s, a copy of them owned by the
 * builder. */
int64_t pp_strings__own_n(struct builder *b, const char *s, size_t len)
{
	return pp_strings__take(b, strndup(s, len));
}

int64_t pp_strings__own(struct builder *b, const char *s)
{
	return s[0] ? pp_strings__own_n(b, s, strlen(s)) : 0;
}
