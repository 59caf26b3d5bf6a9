// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the frame kinds' table (base/frame_kind.c): what the folded
 * writer appends, the reader takes back; a runtime's pprof mapping names
 * its kind; the page's palette has a row for every kind; the protobuf
 * writers' OTLP type and function of a runtime frame come from its row.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/frame_kind.h"
#include "output/frame_kind.h"
#include "profile/aggregate.h"

Test(frame_kind, suffix_round_trip)
{
	for (int k = 0; k < FK_MAX; k++) {
		const char *suffix = frame_kinds[k].suffix;
		char name[64];
		enum frame_kind got;
		size_t len;

		if (!*suffix)
			continue;
		snprintf(name, sizeof(name), "work%s", suffix);
		len = frame_kind__from_suffix(name, strlen(name), &got);
		cr_expect_eq(len, 4, "kind %d", k);
		/* kinds sharing a suffix read back as the first of them */
		cr_expect_str_eq(frame_kinds[got].suffix, suffix);
		cr_expect((int)got <= k);
	}
}

Test(frame_kind, no_suffix_is_user)
{
	enum frame_kind got = FK_ROOT;

	cr_expect_eq(frame_kind__from_suffix("main", 4, &got), 4);
	cr_expect_eq(got, FK_USER);
	/* a name that is only the suffix keeps it: no empty name */
	cr_expect_eq(frame_kind__from_suffix("_[k]", 4, &got), 4);
	cr_expect_eq(got, FK_USER);
}

Test(frame_kind, mappings_and_rows)
{
	cr_expect_eq(frame_kind__from_mapping("[python]"), FK_PYTHON);
	cr_expect_eq(frame_kind__from_mapping("/usr/bin/python3.11"), FK_USER);
	cr_expect_eq(frame_kind__row((enum frame_kind)200), &frame_kinds[FK_USER]);
	for (int k = 0; k < FK_MAX; k++) {
		cr_expect_not_null(frame_kinds[k].name, "kind %d has a name", k);
		cr_expect_not_null(frame_kinds[k].mark, "kind %d has a mark", k);
		cr_expect(frame_kinds[k].hue >= 0 && frame_kinds[k].hue < 360);
	}
}

Test(frame_kind, runtime_frame_for_protobuf)
{
	struct pframe py = { .name = "handle (app.py:12)", .runtime = FK_PYTHON };
	struct pframe jit = { .name = "[JIT]", .jit = true };

	cr_expect_str_eq(frame_kind__otel_type(&py, "/usr/bin/python3.11"), "cpython");
	cr_expect_eq(frame_kind__function_len(&py), strlen("handle"));
	cr_expect_str_eq(frame_kind__otel_type(&jit, "/usr/bin/node"), "v8js");
	cr_expect_eq(frame_kind__function_len(&jit), strlen("[JIT]"));
}
