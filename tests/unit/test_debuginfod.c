// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of debuginfod_curl.c: the origin a redirect is checked by. */
#include <criterion/criterion.h>

#include "debuginfod_curl.h"

Test(debuginfod, origins_are_scheme_host_and_port)
{
	static const char *const cases[][2] = {
		{ "http://127.0.0.1:8002/buildid/ab/debuginfo", "http://127.0.0.1:8002" },
		{ "HTTPS://Debuginfod.Example.org/x", "https://debuginfod.example.org:443" },
		{ "http://u:p@h", "http://h:80" },
		{ "http://[::1]:81/a", "http://[::1]:81" },
		{ "http://h?q=@evil:1", "http://h:80" },	/* '@' after the authority */
		{ "no-scheme/path", "" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		debuginfod_curl__origin(cases[i][0], buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i][1], "%s", cases[i][0]);
	}
}
