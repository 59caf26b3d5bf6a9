// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of an interval's span (run/collect.c) and its end as the
 * writers read it (profile/stats.h): intervals tile in wall time. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "profile/stats.h"
#include "run/collect.h"

#define S 1000000000ull

Test(interval, span_is_the_wall_difference)
{
	/* the wall clock slewed 0.2 ms faster than the monotonic one */
	struct flip_time end = { .mono_ns = 100 * S + S, .wall_ns = 1700000000 * S + S + 200000 };
	uint64_t span = collector__span_ns(100 * S, 1700000000 * S, &end);

	cr_expect_eq(span, S + 200000, "start_wall + span is the next start");
}

Test(interval, span_after_a_clock_step)
{
	struct flip_time back = { .mono_ns = 101 * S, .wall_ns = 1700000000 * S - 5 * S };
	struct flip_time ahead = { .mono_ns = 101 * S, .wall_ns = 1700000000 * S + 3601 * S };

	cr_expect_eq(collector__span_ns(100 * S, 1700000000 * S, &back), S, "stepped back");
	cr_expect_eq(collector__span_ns(100 * S, 1700000000 * S, &ahead), S, "stepped ahead");
}

Test(interval, span_of_a_long_interval_slewed)
{
	/* an hour slewed at 500 ppm: 1.8 s, still NTP's, not a step */
	struct flip_time end = { .mono_ns = 3600 * S, .wall_ns = 1700000000 * S + 3600 * S + 1800000000 };

	cr_expect_eq(collector__span_ns(0, 1700000000 * S, &end), 3600 * S + 1800000000);
}

/* duration is kept in seconds (a double): the writers get the nanoseconds
 * back exactly, so one interval's end is the next one's start. */
Test(interval, end_is_the_next_start)
{
	uint64_t start = 1795867340172408722ull, spans[] = { 1, 999999999, S, 1012345678, 86399 * S + 7 };

	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		struct profile_stats st = { .start_wall_ns = start, .duration = spans[i] / 1e9 };

		cr_expect_eq(profile_stats__duration_ns(&st), spans[i], "%lu ns", (unsigned long)spans[i]);
		cr_expect_eq(profile_stats__end_wall_ns(&st), start + spans[i]);
	}
}
