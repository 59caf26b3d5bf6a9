// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of url.c: a URL's scheme, userinfo, host and port. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/url.h"

static void expect_part(const char *url, const char *p, size_t len, const char *want)
{
	if (!want) {
		cr_expect_null(p, "%s", url);
		return;
	}
	cr_assert_not_null(p, "%s", url);
	cr_expect_eq(len, strlen(want), "%s: %.*s", url, (int)len, p);
	cr_expect_eq(strncmp(p, want, len), 0, "%s: %.*s", url, (int)len, p);
}

Test(url, authority_parts)
{
	static const char *const cases[][5] = {
		/* url, scheme, userinfo, host, port */
		{ "http://u:pw@h:4040/x?a=b", "http", "u:pw", "h", "4040" },
		{ "u:secret@h:4040/ingest?from=http://x", NULL, "u:secret", "h", "4040" },
		{ "[::1]:4040/x", NULL, NULL, "[::1]", "4040" },
		{ "https://u@[::1]/x", "https", "u", "[::1]", NULL },
		{ "h?q=@evil:1", NULL, NULL, "h", NULL },
		{ "u:p@a@h#http://x", NULL, "u:p@a", "h", NULL },
		{ "svn+ssh.x-1://h:2", "svn+ssh.x-1", NULL, "h", "2" },
		{ "1x://h", NULL, NULL, "1x", "" },	/* not a scheme: a digit first */
		{ "", NULL, NULL, "", NULL },
	};
	struct url_authority a;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *url = cases[i][0];

		url__authority(url, &a);
		expect_part(url, a.scheme, a.scheme_len, cases[i][1]);
		expect_part(url, a.at ? a.start : NULL, a.at ? (size_t)(a.at - a.start) : 0,
			    cases[i][2]);
		expect_part(url, a.host, a.host_len, cases[i][3]);
		expect_part(url, a.port, a.port_len, cases[i][4]);
	}
}

Test(url, origins_are_scheme_host_and_port)
{
	static const char *const cases[][2] = {
		{ "http://127.0.0.1:8002/buildid/ab/debuginfo", "http://127.0.0.1:8002" },
		{ "HTTPS://Debuginfod.Example.org/x", "https://debuginfod.example.org:443" },
		{ "http://u:p@h", "http://h:80" },
		{ "http://[::1]:81/a", "http://[::1]:81" },
		{ "http://h?q=@evil:1", "http://h:80" },	/* '@' after the authority */
		{ "localhost:8002/x", "http://localhost:8002" },	/* libcurl's guess */
		{ "h/x?u=https://evil", "http://h:80" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect(url__origin(cases[i][0], buf, sizeof(buf)), "%s", cases[i][0]);
		cr_expect_str_eq(buf, cases[i][1], "%s", cases[i][0]);
	}
	cr_expect_not(url__origin("http://a-rather-long-host:8080", buf, 16));
	cr_expect_str_eq(buf, "");
}
