// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of base/formats.c: the output formats' table, every row
 * complete, and its lookups by name and by -o's suffix. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "leak_check.h"
#include "base/formats.h"
#include "output/emit.h"
#include "profile/aggregate.h"

TestSuite(formats, .fini = check_leaks);

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

Test(formats, every_row_complete)
{
	int rows = 0;

	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++, rows++) {
		const struct format_row *r = formats__row(f);

		cr_assert_not_null(r, "row %d", f);
		cr_expect(r->name && *r->name, "row %d: a name", f);
		cr_expect(r->words && *r->words, "%s: start-line words", r->name);
		cr_expect(r->content_type && strchr(r->content_type, '/'), "%s: a content type",
			  r->name);
		cr_expect(r->suffixes[0] && r->suffixes[0][0] == '.' && r->suffixes[0][1],
			  "%s: a suffix", r->name);
		cr_expect(emit__has_writer(f), "%s: a writer", r->name);
		cr_expect_str_eq(formats__extension(f), r->suffixes[0] + 1);
	}
	cr_expect_eq(rows, 5, "folded, pprof, otlp, html, svg: %d rows", rows);
	cr_expect_null(formats__row(FORMAT_AUTO));
	cr_expect_null(formats__row(FORMAT_BOTH));
	cr_expect_null(formats__row(FORMAT_END));
}

/* by_suffix takes the first row whose suffix ends the name: no suffix
 * may end another row's, or that row could never be picked */
Test(formats, suffixes_unambiguous)
{
	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++)
		for (int i = 0; i < FORMAT_MAX_SUFFIXES && formats__row(f)->suffixes[i]; i++)
			for (int g = FORMAT_FIRST_ROW; g < FORMAT_END; g++)
				for (int j = 0; g != f && j < FORMAT_MAX_SUFFIXES &&
						formats__row(g)->suffixes[j]; j++)
					cr_expect(!ends_with(formats__row(f)->suffixes[i],
							     formats__row(g)->suffixes[j]),
						  "%s ends with %s", formats__row(f)->suffixes[i],
						  formats__row(g)->suffixes[j]);
}

Test(formats, by_name)
{
	cr_expect_eq(formats__by_name("folded"), FORMAT_FOLDED);
	cr_expect_eq(formats__by_name("pprof"), FORMAT_PPROF);
	cr_expect_eq(formats__by_name("otlp"), FORMAT_OTLP);
	cr_expect_eq(formats__by_name("html"), FORMAT_HTML);
	cr_expect_eq(formats__by_name("svg"), FORMAT_SVG);
	cr_expect_eq(formats__by_name("both"), FORMAT_BOTH);
	cr_expect_eq(formats__by_name("PPROF"), FORMAT_AUTO);
	cr_expect_eq(formats__by_name("pb.gz"), FORMAT_AUTO);
	cr_expect_eq(formats__by_name(""), FORMAT_AUTO);
	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++)
		cr_expect_eq(formats__by_name(formats__row(f)->name), f);
}

Test(formats, by_suffix)
{
	cr_expect_eq(formats__by_suffix("app.html"), FORMAT_HTML);
	cr_expect_eq(formats__by_suffix("app.htm"), FORMAT_HTML);
	cr_expect_eq(formats__by_suffix("/x/a.svg"), FORMAT_SVG);
	cr_expect_eq(formats__by_suffix("a.pb.gz"), FORMAT_PPROF);
	cr_expect_eq(formats__by_suffix("a.pb"), FORMAT_PPROF);
	cr_expect_eq(formats__by_suffix("a.pprof"), FORMAT_PPROF);
	cr_expect_eq(formats__by_suffix("a.otlp"), FORMAT_OTLP);
	cr_expect_eq(formats__by_suffix("a.folded"), FORMAT_FOLDED);
	cr_expect_eq(formats__by_suffix("a.txt"), FORMAT_AUTO);
	cr_expect_eq(formats__by_suffix("a.gz"), FORMAT_AUTO);
	cr_expect_eq(formats__by_suffix("html"), FORMAT_AUTO);
	cr_expect_eq(formats__by_suffix(""), FORMAT_AUTO);
	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++)
		for (int i = 0; i < FORMAT_MAX_SUFFIXES && formats__row(f)->suffixes[i]; i++)
			cr_expect_eq(formats__by_suffix(formats__row(f)->suffixes[i]), f);
}

Test(formats, where_each_goes)
{
	unsigned int fleet = FORMAT_TO_FLEET, push = FORMAT_TO_PUSH;

	cr_expect(formats__carries(FORMAT_FOLDED, fleet | push));
	cr_expect(formats__carries(FORMAT_PPROF, fleet | push | FORMAT_ADDRESSES));
	cr_expect(formats__carries(FORMAT_OTLP, fleet | FORMAT_ADDRESSES));
	cr_expect(!formats__carries(FORMAT_OTLP, push));
	cr_expect(!formats__carries(FORMAT_HTML, fleet) && !formats__carries(FORMAT_HTML, push));
	cr_expect(!formats__carries(FORMAT_SVG, fleet) && !formats__carries(FORMAT_SVG, push));
	cr_expect(formats__carries(FORMAT_BOTH, fleet | push));
	cr_expect(!formats__carries(FORMAT_BOTH, FORMAT_ADDRESSES));
	cr_expect(!formats__carries(FORMAT_AUTO, fleet));
}

Test(formats, words_and_lists)
{
	char buf[160];

	cr_expect_str_eq(formats__words(FORMAT_HTML), "a flame graph page");
	cr_expect_str_eq(formats__words(FORMAT_BOTH), "folded and pprof");
	formats__list(buf, sizeof(buf), 0, " or ");
	cr_expect_str_eq(buf, "folded, pprof, otlp, html, svg or both");
	formats__list(buf, sizeof(buf), FORMAT_TO_FLEET, " or ");
	cr_expect_str_eq(buf, "folded, pprof, otlp or both");
	formats__list(buf, sizeof(buf), FORMAT_TO_PUSH, ", or ");
	cr_expect_str_eq(buf, "folded, pprof, or both");
	formats__list(buf, sizeof(buf), FORMAT_ADDRESSES, " or ");
	cr_expect_str_eq(buf, "pprof or otlp");
	formats__list(buf, 12, 0, " or ");	/* cut short, still a string */
	cr_expect_eq(strlen(buf), 11);
}

/* each row's writer writes: an empty profile in every format, the
 * flame graph page's and the image's by their own opening */
Test(formats, every_writer_writes)
{
	struct profile *p = profile__new();

	cr_assert_not_null(p);
	for (int f = FORMAT_FIRST_ROW; f < FORMAT_END; f++) {
		char *buf = NULL;
		size_t len = 0;

		cr_expect_eq(emit__render(p, f, "c", &buf, &len), 0, "%s", formats__row(f)->name);
		if (f == FORMAT_HTML)
			cr_expect(len > 15 && !strncasecmp(buf, "<!doctype html", 14));
		if (f == FORMAT_SVG)
			cr_expect(len > 5 && strstr(buf, "<svg"));
		free(buf);
	}
	cr_expect_eq(emit__render(p, FORMAT_BOTH, "c", &(char *){ NULL }, &(size_t){ 0 }), -EINVAL);
	profile__free(p);
}
