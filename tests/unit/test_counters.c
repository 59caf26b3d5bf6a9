// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of counters.c: the registered counters, their reading and
 * their merge rules. */
#include <criterion/criterion.h>
#include <string.h>

#include "profile/counters.h"
#include "profile/stats.h"

static const struct counter *find(const char *group, const char *key,
				  const struct counter_group **grp)
{
	for (size_t g = 0; g < counters__groups(); g++) {
		const struct counter_group *cg = counters__group(g);

		if (!cg || strcmp(cg->key, group))
			continue;
		*grp = cg;
		for (size_t i = 0; i < cg->n; i++)
			if (!strcmp(cg->counters[i].key, key))
				return &cg->counters[i];
	}
	cr_assert_fail("no counter %s.%s", group, key);
	return NULL;
}

/* A U64 counter's field in st, wherever its group keeps it. */
static uint64_t *field_of(struct profile_stats *st, const char *group, const char *key)
{
	const struct counter_group *g;

	return (uint64_t *)((char *)st + find(group, key, &g)->offset);
}

Test(counters, keys_are_unique_in_their_group_and_groups_too)
{
	for (size_t g = 0; g < counters__groups(); g++) {
		const struct counter_group *cg = counters__group(g);

		for (size_t i = 0; cg && i < cg->n; i++)
			for (size_t k = i + 1; k < cg->n; k++)
				cr_assert_str_neq(cg->counters[i].key, cg->counters[k].key, "%s",
						  cg->key);
		for (size_t h = g + 1; cg && h < counters__groups(); h++)
			if (counters__group(h))
				cr_assert_str_neq(cg->key, counters__group(h)->key);
	}
}

/* Each runtime's row registers its group, named as the runtime. */
Test(counters, each_runtime_row_has_its_group)
{
	const struct counter_group *g;

	find("python", "processes", &g);
	find("v8", "processes", &g);
	find("hotspot", "processes", &g);
}

Test(counters, each_kind_read_from_its_field)
{
	struct profile_stats st = { 0 };
	const struct counter_group *g;

	st.jit_refused = 1ull << 60;	/* past a double's exact integers */
	st.tables.rows = 12345;
	st.tables.build_seconds = 1.5;
	st.debuginfod_spent = true;
	st.bpf[STAT_PY_FRAMES] = 7;
	cr_assert_eq(counter__count(&st, find("inputs", "jit_maps_refused", &g)), 1ull << 60);
	cr_assert_eq(counter__count(&st, find("unwind_tables", "rows", &g)), 12345);
	cr_assert_float_eq(counter__seconds(&st, find("unwind_tables", "build_s", &g)), 1.5, 1e-9);
	cr_assert_eq(counter__count(&st, find("debuginfod", "timeout_spent", &g)), 1);
	cr_assert_eq(counter__count(&st, find("python", "frames_read", &g)), 7);
}

Test(counters, merge_sums_counts_keeps_the_newer_total_and_leaves_bpf_alone)
{
	struct profile_stats a = { 0 }, b = { 0 };

	a.jit_malformed = 2, b.jit_malformed = 3;		/* an interval's: sum */
	*field_of(&a, "python", "processes") = 4;			/* since the start: newer */
	*field_of(&b, "python", "processes") = 5;
	a.bpf[STAT_PY_FRAMES] = 10, b.bpf[STAT_PY_FRAMES] = 20;	/* profile__merge's */
	a.cgroups_unnamed = 1, b.cgroups_unnamed = 1;
	counters__merge(&a, &b);
	cr_assert_eq(a.jit_malformed, 5);
	cr_assert_eq(*field_of(&a, "python", "processes"), 5);
	cr_assert_eq(a.bpf[STAT_PY_FRAMES], 10);
	cr_assert_eq(a.cgroups_unnamed, 2);
}

Test(counters, a_group_that_does_not_apply_is_neither_shown_nor_merged)
{
	struct profile_stats a = { 0 }, b = { 0 };
	const struct counter_group *tables, *inputs;

	find("unwind_tables", "rows", &tables);
	find("inputs", "jit_lines_past_cap", &inputs);
	a.tables.set = true, a.tables.rows = 100;
	b.tables.rows = 999;				/* b had no tables */
	counters__merge(&a, &b);
	cr_assert_eq(a.tables.rows, 100);
	b.tables.set = true;
	counters__merge(&a, &b);
	cr_assert_eq(a.tables.rows, 999, "the newer tables");
	cr_assert(counter_group__shown(&a, tables, true));
	cr_assert_not(counter_group__shown(&a, inputs, false), "all zero: no -v line");
	cr_assert(counter_group__shown(&a, inputs, true), "but always in JSON");
	a.jit_over_cap = 1;
	cr_assert(counter_group__shown(&a, inputs, false));
}
