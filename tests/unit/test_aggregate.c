// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of aggregate.c: a profile's strings, interned once. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "aggregate.h"
#include "leak_check.h"

TestSuite(aggregate, .fini = check_leaks);

/* Past the set's first growths: every name is its own copy, equal names
 * one copy, whatever buffer the caller passed them in. */
Test(aggregate, equal_strings_are_one_copy_across_growth)
{
	struct profile *p = profile__new();
	char name[2][32], map[32] = "/usr/lib/libx.so";
	struct pframe f[2] = { 0 };
	const char *first = NULL;

	cr_assert_not_null(p);
	for (int i = 0; i < 5000; i++) {
		snprintf(name[0], sizeof(name[0]), "fn_%d", i);
		snprintf(name[1], sizeof(name[1]), "fn_%d", i % 7);
		f[0] = (struct pframe){ .name = name[0], .mapping = map };
		f[1] = (struct pframe){ .name = name[1], .mapping = map };
		cr_assert_eq(profile__add(p, 0, "app", 1, 1, 1, f, 2), 0);
	}
	cr_assert_eq(p->nsamples, 5000);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct psample *s = &p->samples[i];
		char want[32];

		snprintf(want, sizeof(want), "fn_%zu", i);
		cr_assert_str_eq(s->frames[0].name, want);
		snprintf(want, sizeof(want), "fn_%zu", i % 7);
		cr_assert_str_eq(s->frames[1].name, want);
		/* fn_0..fn_6 of the second frame are the first frames' copies */
		cr_assert_eq(s->frames[1].name, p->samples[i % 7].frames[0].name);
		cr_assert_eq(s->frames[0].mapping, s->frames[1].mapping);
		cr_assert_str_eq(s->frames[0].mapping, map);
		cr_assert_str_eq(s->frames[0].file, "");	/* none: "" */
		if (!first)
			first = s->frames[0].mapping;
		cr_assert_eq(s->frames[0].mapping, first, "one copy of the mapping");
	}
	cr_assert_eq(p->names.n, 5000 + 2);	/* the names, the mapping, "" */
	profile__free(p);
}
