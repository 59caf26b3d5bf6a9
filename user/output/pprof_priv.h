/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pprof writer's builder (pprof.c), shared with its tables of interned
 * entries and strings (pprof_strings.c). Not for other rooms: pprof.h is
 * the interface. */
#ifndef BPFPROF_PPROF_PRIV_H
#define BPFPROF_PPROF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/sample_kind.h"
#include "profile/aggregate.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Tables of a profile under construction; every id is index + 1. */
/* A cgroup's labels' string indices (0: the label is not there): its path
 * and the container, pod and unit that path names. */
struct cgroup_labels {
	const struct pcgroup *of;
	int64_t path, container, pod, unit;
};

struct builder {
	Profile prof;
	void *strings;		/* tree: struct pp_key by string */
	void *mappings;		/* tree: struct pp_key by (mapping, build_id) pointers */
	void *functions;	/* tree: struct pp_key by (name, mapping) pointers */
	void *locations;	/* tree: struct pp_key by (mapping id, addr, function id, line) */
	size_t cap_str, cap_map, cap_fn, cap_loc;
	char **owned;		/* strings made here (comment lines, Python functions) */
	size_t n_owned, cap_owned;
	struct cgroup_labels cg;	/* the last sample's cgroup's */
	/* the events written (all, or one: pprof__write_event) and their
	 * columns: event i's values from col[i] on */
	struct pevent events[MAX_EVENTS];
	struct sample_kind kinds[MAX_EVENTS];
	int nevents, only, col[MAX_EVENTS], ncols;
	int err;
};

struct pp_key {
	const void *a, *b;	/* interned strings: compared by pointer */
	uint64_t x, y, z, w;
	uint64_t id;
};

/* Orders pp_keys by every field (the tables but the strings'). */
int pp_table__cmp(const void *pa, const void *pb);

/* Finds key in tree, or inserts a copy with id = next; 0 on error. */
uint64_t pp_table__find_or_add(struct builder *b, void **tree, const struct pp_key *key,
			       int (*cmp)(const void *, const void *), uint64_t next, bool *added);

/* The index of s in the string table; s is kept by pointer (it must
 * outlive the write), or, not well-formed UTF-8, by a repaired copy. */
int64_t pp_strings__index(struct builder *b, const char *s);

/* The index of copy, a string made here, which the builder then owns
 * (freed now if the table had it); made well-formed UTF-8 first
 * (base/utf8_safe.h: the same repair as OTLP's). */
int64_t pp_strings__take(struct builder *b, char *copy);

/* The index of the first len bytes of s, a copy of them owned by the
 * builder. */
int64_t pp_strings__own_n(struct builder *b, const char *s, size_t len);

/* The same of all of s; 0 (the empty string) when s is empty. */
int64_t pp_strings__own(struct builder *b, const char *s);

#endif
