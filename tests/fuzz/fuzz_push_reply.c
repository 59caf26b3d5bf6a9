// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/output/push_reply.c and push_retry.c, what bpfprof does
 * with a push's reply (the server's bytes). The input: the HTTP status (2
 * bytes, signed), the excerpt buffer's size (1 byte), a repeat count (1
 * byte), then chunks (a length byte, then that many bytes) as libcurl's
 * write callback would get them, the whole list written REPEAT times to
 * pass the bound; the same chunks are header lines to the header callback.
 * The reply must be kept up to PUSH_REPLY_MAX exactly, refused past it, and
 * the excerpt be one NUL-ended line of printable ASCII within its buffer;
 * the headers kept must be NUL-ended within theirs, and a Retry-After read
 * from them (or from the chunks) a wait within its bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/push_reply.h"
#include "output/push_retry.h"
#include "fuzz_check.h"

static struct push_reply reply;
static uint8_t sent[PUSH_REPLY_MAX];

/* Feeds the chunks; returns the bytes offered. */
static size_t feed(const uint8_t *p, const uint8_t *end, size_t *kept)
{
	size_t offered = 0, n, took;

	while (p < end) {
		n = *p++;
		if (n > (size_t)(end - p))
			n = (size_t)(end - p);
		took = push_reply__write((char *)p, 1, n, &reply);
		CHECK(took == n || took == 0);
		if (took) {
			CHECK(offered + n <= PUSH_REPLY_MAX);
			memcpy(sent + *kept, p, n);
			*kept += n;
		}
		offered += n;
		p += n;
	}
	return offered;
}

/* A Retry-After's wait is within its bound; the backoff's too. */
static void check_after(const char *value, uint32_t random)
{
	int64_t ms = -1, wait;

	if (push_retry__after(value, (time_t)random, &ms))
		CHECK(ms >= 0 && ms <= PUSH_RETRY_AFTER_MAX_MS);
	else
		CHECK(ms == 0);
	wait = push_retry__wait_ms(random % 40, random, ms);
	CHECK(wait >= PUSH_BACKOFF_MIN_MS / 2 && wait < PUSH_BACKOFF_MAX_MS * 3 / 2);
	CHECK(wait >= ms);
}

/* The chunks as header lines: what is kept is a NUL-ended value. */
static void check_headers(const uint8_t *p, const uint8_t *end, long status)
{
	char line[256 + 1];
	size_t n;

	push_reply__reset(&reply);
	while (p < end) {
		n = *p++;
		if (n > (size_t)(end - p))
			n = (size_t)(end - p);
		CHECK(push_reply__header((char *)p, 1, n, &reply) == n);
		CHECK(memchr(reply.retry_after, '\0', sizeof(reply.retry_after)));
		CHECK(memchr(reply.content_type, '\0', sizeof(reply.content_type)));
		memcpy(line, p, n);
		line[n] = '\0';
		check_after(line, (uint32_t)status * 2654435761u + (uint32_t)n);
		p += n;
	}
	check_after(reply.retry_after, (uint32_t)status);
	push_reply__is_protobuf(&reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char excerpt[256 + 4];
	size_t kept = 0, offered = 0, cap, took, i;
	enum push_verdict v;
	long status;
	int repeat;

	if (size < 4)
		return 0;
	status = (int16_t)(data[0] | data[1] << 8);
	cap = data[2] ? data[2] : 1;
	repeat = 1 + data[3] % 64;
	push_reply__reset(&reply);
	for (int r = 0; r < repeat && !reply.cut; r++)
		offered += feed(data + 4, data + size, &kept);
	CHECK(reply.len == kept && reply.len <= PUSH_REPLY_MAX);
	CHECK(!memcmp(reply.buf, sent, kept));
	CHECK(reply.cut == (offered > kept));
	took = reply.len < PUSH_REPLY_MAX && !reply.cut;
	CHECK(push_reply__write("x", 1, 1, &reply) == took);

	v = push_retry__verdict(status);
	CHECK((v == PUSH_SENT) == (status >= 200 && status < 300));
	CHECK((v == PUSH_RETRY) == (status <= 0 || status == 429 || status == 502 ||
				    status == 503 || status == 504));
	CHECK((v == PUSH_REFUSED) == (status > 0 && v != PUSH_SENT && v != PUSH_RETRY));

	memset(excerpt, 0x7f, sizeof(excerpt));
	push_reply__excerpt(&reply, excerpt, cap);
	CHECK(memchr(excerpt, '\0', cap));
	CHECK(strlen(excerpt) < cap && strlen(excerpt) <= PUSH_REPLY_EXCERPT);
	for (i = 0; excerpt[i]; i++)
		CHECK(excerpt[i] >= 0x20 && excerpt[i] < 0x7f);
	CHECK(excerpt[cap] == 0x7f);	/* nothing written past the buffer */
	check_headers(data + 4, data + size, status);
	return 0;
}
