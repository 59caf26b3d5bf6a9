// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A process's share of the table work: token buckets and a row cap. */
#include "unwind/share.h"

void share__init(struct share *s, uint64_t now)
{
	*s = (struct share){ .tables = SHARE_TABLES_BURST, .build_s = SHARE_BUILD_BURST_S,
			     .syncs = SHARE_SYNCS_BURST, .at_ns = now };
}

void share__sync_exec(struct share *s, uint64_t *stamp, uint64_t exec_stamp, uint64_t now)
{
	size_t rows = s->rows;

	if (!exec_stamp || exec_stamp == *stamp)
		return;
	*stamp = exec_stamp;
	share__init(s, now);
	s->rows = rows;
}

static double refill(double have, double per_s, double burst, double seconds)
{
	have += per_s * seconds;
	return have > burst ? burst : have;
}

static void refill_all(struct share *s, uint64_t now)
{
	double dt;

	if (now <= s->at_ns)	/* no time passed (or the caller's clock is older) */
		return;
	dt = (double)(now - s->at_ns) / 1e9;
	s->at_ns = now;
	s->tables = refill(s->tables, SHARE_TABLES_PER_S, SHARE_TABLES_BURST, dt);
	s->build_s = refill(s->build_s, SHARE_BUILD_PER_S, SHARE_BUILD_BURST_S, dt);
	s->syncs = refill(s->syncs, SHARE_SYNCS_PER_S, SHARE_SYNCS_BURST, dt);
}

bool share__admit_sync(struct share *s, uint64_t now)
{
	refill_all(s, now);
	if (s->syncs < 1)
		return false;
	s->syncs -= 1;
	return true;
}

enum share_limit share__admit(struct share *s, uint64_t now)
{
	refill_all(s, now);
	if (s->build_s <= 0)
		return SHARE_BUILD_TIME;
	if (s->tables < 1)
		return SHARE_TABLES;
	s->tables -= 1;
	return SHARE_OK;
}

void share__charge(struct share *s, double seconds)
{
	s->build_s -= seconds;
}

bool share__rows_fit(const struct share *s, size_t nrows, size_t budget)
{
	return s->rows + nrows <= budget / SHARE_ROWS_DEN * SHARE_ROWS_NUM;
}

const char *share__limit_name(enum share_limit lim)
{
	static const char *const names[SHARE_LIMITS] = {
		[SHARE_OK] = "none",
		[SHARE_TABLES] = "new tables a second",
		[SHARE_BUILD_TIME] = "build time a second",
		[SHARE_ROWS] = "rows held (of --unwind-rows)",
	};

	return lim < SHARE_LIMITS ? names[lim] : "?";
}
