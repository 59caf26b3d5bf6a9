// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of push_retry.c (which answers are sent again, after how
 * long: OTLP/HTTP's rules, opentelemetry-proto docs/specification.md), of
 * the headers push_reply.c keeps, and of otlp_reply.c's reading of a
 * google.rpc.Status. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "leak_check.h"
#include "output/otlp_reply.h"
#include "output/push_reply.h"
#include "output/push_retry.h"
#include "google/rpc/status.pb-c.h"

TestSuite(push_retry, .fini = check_leaks);

Test(push_retry, only_429_502_503_504_and_no_answer_are_retried)
{
	static const long sent[] = { 200, 202, 204, 299 };
	static const long retried[] = { 429, 502, 503, 504, 0, -1 };
	/* "All other 4xx or 5xx response status codes MUST NOT be retried" */
	static const long refused[] = { 100, 301, 302, 304, 400, 401, 403, 404, 408, 413, 415,
					422, 500, 501, 505, 507, 511, 599, 600 };

	for (size_t i = 0; i < sizeof(sent) / sizeof(*sent); i++)
		cr_expect_eq(push_retry__verdict(sent[i]), PUSH_SENT, "%ld", sent[i]);
	for (size_t i = 0; i < sizeof(retried) / sizeof(*retried); i++)
		cr_expect_eq(push_retry__verdict(retried[i]), PUSH_RETRY, "%ld", retried[i]);
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		cr_expect_eq(push_retry__verdict(refused[i]), PUSH_REFUSED, "%ld", refused[i]);
}

static int64_t after(const char *value, time_t now, bool *ok)
{
	int64_t ms = -1;

	*ok = push_retry__after(value, now, &ms);
	return ms;
}

Test(push_retry, retry_after_in_seconds)
{
	bool ok;

	cr_expect_eq(after("2", 0, &ok), 2000);
	cr_expect(ok);
	cr_expect_eq(after("0", 0, &ok), 0);
	cr_expect(ok);
	cr_expect_eq(after("120", 0, &ok), 120000);
	/* bounded: a server may ask for an hour, or for ever */
	cr_expect_eq(after("3600", 0, &ok), PUSH_RETRY_AFTER_MAX_MS);
	cr_expect(ok);
	cr_expect_eq(after("99999999999999999999999999", 0, &ok), PUSH_RETRY_AFTER_MAX_MS);
	cr_expect(ok);
	/* not delay-seconds (1*DIGIT), not a date: as if absent */
	static const char *const bad[] = { "", "-1", "1.5", "2s", " 2", "0x10", "+3", "two" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_expect_eq(after(bad[i], 0, &ok), 0, "'%s'", bad[i]);
		cr_expect_not(ok, "'%s'", bad[i]);
	}
}

Test(push_retry, retry_after_as_an_http_date_in_its_three_forms)
{
	struct tm tm = { .tm_year = 94, .tm_mon = 10, .tm_mday = 6, .tm_hour = 8, .tm_min = 49,
			 .tm_sec = 37 };
	time_t at = timegm(&tm), now2026 = 1795000000;	/* 2026-11-18 */
	bool ok;

	/* RFC 9110 5.6.7's examples, 10 s ahead */
	cr_expect_eq(after("Sun, 06 Nov 1994 08:49:37 GMT", at - 10, &ok), 10000);
	cr_expect(ok);
	cr_expect_eq(after("Sunday, 06-Nov-94 08:49:37 GMT", at - 10, &ok), 10000);
	cr_expect(ok);
	cr_expect_eq(after("Sun Nov  6 08:49:37 1994", at - 10, &ok), 10000);
	cr_expect(ok);
	/* a date past: now */
	cr_expect_eq(after("Sun, 06 Nov 1994 08:49:37 GMT", at + 5, &ok), 0);
	cr_expect(ok);
	/* far ahead: bounded */
	cr_expect_eq(after("Sun, 06 Nov 1994 08:49:37 GMT", at - 86400, &ok),
		     PUSH_RETRY_AFTER_MAX_MS);
	/* RFC 850's two-digit year: more than 50 years ahead is the past century */
	cr_expect_eq(after("Sunday, 06-Nov-94 08:49:37 GMT", now2026, &ok), 0);
	cr_expect(ok);
	tm = (struct tm){ .tm_year = 127, .tm_mon = 0, .tm_mday = 1 };
	cr_expect_eq(after("Friday, 01-Jan-27 00:00:00 GMT", timegm(&tm) - 3, &ok), 3000);
	static const char *const bad[] = {
		"Sun, 06 Nov 1994 08:49:37",		/* no zone */
		"Sun, 06 Nov 1994 08:49:37 GMT x",	/* more after it */
		"Sun, 06 Foo 1994 08:49:37 GMT",	/* no such month */
		"Xyz, 06 Nov 1994 08:49:37 GMT",	/* no such day */
		"Sun, 32 Nov 1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 24:49:37 GMT",
		"Sun, 06 Nov 1969 08:49:37 GMT",
		"Sun, 06-Nov-94 08:49:37 GMT",		/* RFC 850 wants the long day name */
		"2026-11-28T12:00:00Z",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_expect_eq(after(bad[i], at - 10, &ok), 0, "'%s'", bad[i]);
		cr_expect_not(ok, "'%s'", bad[i]);
	}
}

Test(push_retry, backoff_doubles_with_jitter_and_honours_retry_after)
{
	/* the n-th failure: d = 1 s * 2^(n-1), the wait in [d/2, 3d/2) */
	for (unsigned int n = 1; n <= 12; n++) {
		int64_t d = (int64_t)PUSH_BACKOFF_MIN_MS << (n - 1);

		if (d > PUSH_BACKOFF_MAX_MS)
			d = PUSH_BACKOFF_MAX_MS;
		cr_expect_eq(push_retry__wait_ms(n, 0, 0), d / 2, "n %u", n);
		cr_expect_eq(push_retry__wait_ms(n, UINT32_MAX, 0), d / 2 + d - 1, "n %u", n);
		cr_expect_eq(push_retry__wait_ms(n, 1u << 31, 0), d, "n %u", n);
	}
	cr_expect_eq(push_retry__wait_ms(1000, UINT32_MAX, 0), PUSH_BACKOFF_MAX_MS * 3 / 2 - 1);
	/* two hosts that failed together come back apart */
	cr_expect_neq(push_retry__wait_ms(1, 0x12345678, 0), push_retry__wait_ms(1, 0x9abcdef0, 0));
	/* Retry-After: at least what it asks (2 s over a first backoff of at most 1.5 s),
	 * bounded; a backoff longer than it stands */
	cr_expect_eq(push_retry__wait_ms(1, UINT32_MAX, 2000), 2000);
	cr_expect_eq(push_retry__wait_ms(1, 0, 10 * PUSH_RETRY_AFTER_MAX_MS),
		     PUSH_RETRY_AFTER_MAX_MS);
	cr_expect_eq(push_retry__wait_ms(5, 0, 2000), 8000);
}

static void header(struct push_reply *r, const char *line)
{
	cr_expect_eq(push_reply__header((char *)line, 1, strlen(line), r), strlen(line));
}

Test(push_retry, the_reply_keeps_retry_after_and_content_type_of_the_last_answer)
{
	struct push_reply *r = malloc(sizeof(*r));
	char longer[PUSH_REPLY_HEADER + 32];

	cr_assert_not_null(r);
	push_reply__reset(r);
	header(r, "HTTP/1.1 100 Continue\r\n");
	header(r, "Retry-After: 99\r\n");
	header(r, "\r\n");
	header(r, "HTTP/1.1 503 Service Unavailable\r\n");
	header(r, "retry-after: \t7 \r\n");
	header(r, "Content-Type: application/x-protobuf\r\n");
	header(r, "Retry-Afterwards: 5\r\n");
	cr_expect_str_eq(r->retry_after, "7");
	cr_expect(push_reply__is_protobuf(r));
	header(r, "HTTP/2 400\r\n");
	cr_expect_str_eq(r->retry_after, "");
	header(r, "content-type: application/x-protobuf; charset=binary\r\n");
	cr_expect(push_reply__is_protobuf(r));
	header(r, "Content-Type: application/x-protobuffer\r\n");
	cr_expect_not(push_reply__is_protobuf(r));
	header(r, "Content-Type: application/json\r\n");
	cr_expect_not(push_reply__is_protobuf(r));
	/* a value longer than kept is none */
	snprintf(longer, sizeof(longer), "Retry-After: %0*d\r\n", PUSH_REPLY_HEADER, 1);
	header(r, longer);
	cr_expect_str_eq(r->retry_after, "");
	push_reply__reset(r);
	cr_expect_str_eq(r->content_type, "");
	free(r);
}

/* A google.rpc.Status as a receiver sends it, packed by protobuf-c. */
static size_t status_body(uint8_t *buf, size_t size, int code, const char *message)
{
	Google__Rpc__Status st = GOOGLE__RPC__STATUS__INIT;

	st.code = code;
	st.message = (char *)message;
	cr_assert_leq(google__rpc__status__get_packed_size(&st), size);
	return google__rpc__status__pack(&st, buf);
}

Test(push_retry, a_status_body_is_read_escaped_in_one_line)
{
	char msg[OTLP_REPLY_MESSAGE_SIZE], longest[400];
	uint8_t body[1024];
	size_t n;

	n = status_body(body, sizeof(body), 3, "bad data\nsecond line \033]2;X\007 \xff end");
	cr_assert(otlp_reply__status(body, n, msg, sizeof(msg)));
	cr_expect_str_eq(msg, "bad data\\nsecond line \\x1b]2;X\\x07 \\xff end");
	n = status_body(body, sizeof(body), 14, "");
	cr_assert(otlp_reply__status(body, n, msg, sizeof(msg)));
	cr_expect_str_eq(msg, "code 14");
	/* nothing to say: an empty Status, an empty body */
	n = status_body(body, sizeof(body), 0, "");
	cr_expect_not(otlp_reply__status(body, n, msg, sizeof(msg)));
	cr_expect_not(otlp_reply__status(body, 0, msg, sizeof(msg)));
	cr_expect_str_eq(msg, "");
	/* not a Status: text */
	cr_expect_not(otlp_reply__status("forced", 6, msg, sizeof(msg)));
	/* a long message is cut, and says so */
	memset(longest, 'a', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	n = status_body(body, sizeof(body), 3, longest);
	cr_assert(otlp_reply__status(body, n, msg, sizeof(msg)));
	cr_expect_eq(strlen(msg), OTLP_REPLY_MESSAGE + 3);
	cr_expect_str_eq(msg + OTLP_REPLY_MESSAGE, "...");
}
