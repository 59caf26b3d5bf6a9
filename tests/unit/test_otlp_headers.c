// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of otlp_headers.c: OTEL_EXPORTER_OTLP_HEADERS into request
 * header lines, by the OTel SDK environment's rules; what could break
 * the request or smuggle a header is refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "leak_check.h"
#include "output/otlp_headers.h"

TestSuite(otlp_headers, .fini = check_leaks);

Test(otlp_headers, members_trimmed_decoded_empty_skipped)
{
	struct otlp_headers h;
	const char *why;

	cr_assert_eq(otlp_headers__parse(" api-key = s3cr%3Dt ,, Authorization=Basic%20dTpw,",
					 &h, &why), 0);
	cr_assert_eq(h.n, 2);
	cr_assert_str_eq(h.lines[0], "api-key: s3cr=t");
	cr_assert_str_eq(h.lines[1], "Authorization: Basic dTpw");
	otlp_headers__free(&h);
	cr_assert_eq(otlp_headers__parse("", &h, &why), 0);
	cr_assert_eq(h.n, 0);
	otlp_headers__free(&h);
}

Test(otlp_headers, what_would_break_the_request_is_refused)
{
	static const char *const bad[] = {
		"key",				/* no '=' */
		"=value",			/* no key */
		"bad key=v",			/* not a token */
		"k:x=v",			/* not a token */
		"k=a%0d%0aX-Injected: 1",	/* CR LF decoded */
		"k=a%00b",			/* NUL decoded */
		"Content-Type=text/plain",	/* the body's own */
		"content-encoding=identity",
	};
	struct otlp_headers h;
	const char *why;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		cr_assert_eq(otlp_headers__parse(bad[i], &h, &why), -EINVAL, "%s", bad[i]);
		cr_assert_not_null(why);
		cr_assert_null(strstr(why, bad[i]), "the reason never quotes the text");
		cr_assert_eq(h.n, 0);
		cr_assert_null(h.lines);
	}
}

Test(otlp_headers, bounded)
{
	char many[OTLP_HEADERS_MAX * 8 + 16] = "", big[OTLP_HEADERS_BYTES + 8];
	struct otlp_headers h;
	const char *why;
	size_t n = 0;

	for (int i = 0; i <= OTLP_HEADERS_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "k%d=v,", i);
	cr_assert_eq(otlp_headers__parse(many, &h, &why), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = 'k';
	big[1] = '=';
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(otlp_headers__parse(big, &h, &why), -EINVAL);
}
