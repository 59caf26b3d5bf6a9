// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of user/unwind/share.c: a process's share of the table work. */
#include <criterion/criterion.h>

#include "leak_check.h"
#include "unwind/share.h"

TestSuite(share, .fini = check_leaks);

#define S	1000000000ull

/* A burst of new tables, then the rate: never more than burst + rate x t. */
Test(share, tables_a_burst_then_a_rate)
{
	struct share s;
	size_t taken = 0;

	share__init(&s, 10 * S);
	while (share__admit(&s, 10 * S) == SHARE_OK)
		taken++;
	cr_expect_eq(taken, (size_t)SHARE_TABLES_BURST);
	cr_expect_eq(share__admit(&s, 10 * S), SHARE_TABLES);
	for (uint64_t ms = 1; ms <= 1000; ms++)	/* a second, asked every ms */
		taken += share__admit(&s, 10 * S + ms * 1000000) == SHARE_OK;
	cr_expect_eq(taken, (size_t)(SHARE_TABLES_BURST + SHARE_TABLES_PER_S));
}

/* Build time overspent stops new tables until it is paid back. */
Test(share, build_time_overspent_waits)
{
	struct share s;

	share__init(&s, 0);
	share__charge(&s, SHARE_BUILD_BURST_S + 1.0);	/* one build of 3 s */
	cr_expect_eq(share__admit(&s, 0), SHARE_BUILD_TIME);
	/* 1 s overspent, paid back at SHARE_BUILD_PER_S */
	cr_expect_eq(share__admit(&s, (uint64_t)(0.95 / SHARE_BUILD_PER_S * S)), SHARE_BUILD_TIME);
	cr_expect_eq(share__admit(&s, (uint64_t)(1.05 / SHARE_BUILD_PER_S * S)), SHARE_OK);
}

Test(share, rows_three_quarters_of_the_budget)
{
	struct share s;

	share__init(&s, 0);
	s.rows = 2000;
	cr_expect(share__rows_fit(&s, 1000, 4000));
	cr_expect(!share__rows_fit(&s, 1001, 4000));
}

/* Syncs for new mappings: the burst, then 4 a second; a clock that goes
 * back refills nothing. */
Test(share, syncs_a_burst_then_a_rate)
{
	struct share s;
	size_t n = 0;

	share__init(&s, 5 * S);
	while (share__admit_sync(&s, 5 * S))
		n++;
	cr_expect_eq(n, (size_t)SHARE_SYNCS_BURST);
	cr_expect(!share__admit_sync(&s, 4 * S));
	cr_expect(share__admit_sync(&s, 5 * S + S / 4 + 1000));
	cr_expect(!share__admit_sync(&s, 5 * S + S / 4 + 2000));
}

/* An exec starts a fresh share: a program that spent its share (a loop
 * mapping files) and then execs is not held to it; rows held stay counted
 * (the old image's tables go as they are released); no exec, or the same
 * one synced again, changes nothing. */
Test(share, an_exec_starts_a_fresh_share)
{
	struct share s;
	uint64_t stamp = 0;

	share__init(&s, 0);
	while (share__admit(&s, 0) == SHARE_OK)
		;
	share__charge(&s, SHARE_BUILD_BURST_S + 5.0);
	s.rows = 700;
	s.refused = 3;
	share__sync_exec(&s, &stamp, 0, 1 * S);	/* no exec seen */
	cr_expect_eq(share__admit(&s, 1 * S), SHARE_BUILD_TIME);
	share__sync_exec(&s, &stamp, 42, 1 * S);	/* an exec at 42 */
	cr_expect_eq(stamp, 42);
	cr_expect_eq(s.refused, 0);
	cr_expect_eq(s.rows, 700, "its held rows are still held");
	size_t taken = 0;
	while (share__admit(&s, 1 * S) == SHARE_OK)
		taken++;
	cr_expect_eq(taken, (size_t)SHARE_TABLES_BURST, "a whole burst again");
	share__sync_exec(&s, &stamp, 42, 1 * S);	/* synced again, same exec */
	cr_expect_eq(share__admit(&s, 1 * S), SHARE_TABLES, "the same exec renews nothing");
}
