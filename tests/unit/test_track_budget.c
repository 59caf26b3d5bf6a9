// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of procs/track_budget.c: one process's records held to its
 * budget a second, the others' untouched, the held-back process read again
 * once its second is over, the busiest sender named. */
#include <criterion/criterion.h>

#include "procs/track_budget.h"

#define SEC	1000000000ull

static struct track_budget b;

/* issue 36: one process mapping files in a loop beside one starting. */
Test(track_budget, a_flood_is_held_to_its_budget_the_others_are_not)
{
	pid_t due[2 * TRACK_OVER_MAX];
	int applied = 0, other = 0;

	track_budget__init(&b, 256);
	for (int i = 0; i < 10000; i++) {
		applied += track_budget__take(&b, 100, 5 * SEC + (uint64_t)i * 1000);
		if (i % 100 == 0)	/* another process's 100 records, among them */
			other += track_budget__take(&b, 200, 5 * SEC + (uint64_t)i * 1000);
	}
	cr_expect_eq(applied, 256);
	cr_expect_eq(other, 100, "the other process's records are all applied");
	cr_expect_eq(b.skipped, 10000 - 256);
	cr_expect_eq(b.busiest.pid, 100);
	cr_expect_eq(b.busiest.n, 10000);
	cr_expect_eq(track_budget__due(&b, 5 * SEC + SEC / 2, due), 0,
		     "not read again before its second is over");
	cr_assert_eq(track_budget__due(&b, 6 * SEC, due), 1);
	cr_expect_eq(due[0], 100, "read again once the second is over");
	cr_expect_eq(track_budget__due(&b, 7 * SEC, due), 0, "once");
	/* a new second: a new budget */
	cr_expect(track_budget__take(&b, 100, 8 * SEC));
}

/* A fork is its parent's doing: counted toward the busiest, never held. */
Test(track_budget, forks_count_toward_the_busiest_only)
{
	pid_t due[2 * TRACK_OVER_MAX];

	track_budget__init(&b, 4);
	for (int i = 0; i < 50; i++)
		track_budget__count(&b, 300, SEC);
	cr_expect_eq(b.busiest.pid, 300);
	cr_expect_eq(b.busiest.n, 50);
	cr_expect_eq(b.skipped, 0);
	cr_expect_eq(track_budget__due(&b, 2 * SEC, due), 0);
}

/* More processes past their budget in a second than can be listed: the
 * ones not listed are applied, none is lost; the ones listed are due. */
Test(track_budget, too_many_floods_are_applied_not_lost)
{
	pid_t due[2 * TRACK_OVER_MAX];
	int applied = 0;

	track_budget__init(&b, 1);
	for (pid_t pid = 1; pid <= TRACK_OVER_MAX + 10; pid++)
		for (int i = 0; i < 3; i++)
			applied += track_budget__take(&b, pid, SEC);
	cr_expect_eq(b.skipped, 2 * TRACK_OVER_MAX);
	cr_expect_eq(applied, (TRACK_OVER_MAX + 10) * 3 - 2 * TRACK_OVER_MAX);
	cr_expect_eq(track_budget__due(&b, 2 * SEC, due), TRACK_OVER_MAX);
}
