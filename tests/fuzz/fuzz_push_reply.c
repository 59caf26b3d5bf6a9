// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fuzz target: user/output/push_reply.c, what bpfprof does with a push's
 * reply (the server's bytes). The input: the HTTP status (2 bytes, signed),
 * the excerpt buffer's size (1 byte), a repeat count (1 byte), then chunks
 * (a length byte, then that many bytes) as libcurl's write callback would
 * get them, the whole list written REPEAT times to pass the bound. The reply
 * must be kept up to PUSH_REPLY_MAX exactly, refused past it, and the
 * excerpt be one NUL-ended line of printable ASCII within its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/push_reply.h"
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

	v = push_reply__judge(status);
	CHECK(v == PUSH_SENT || v == PUSH_REFUSED || v == PUSH_RETRY);
	CHECK((v == PUSH_SENT) == (status >= 200 && status < 300));
	CHECK(v != PUSH_REFUSED || (status >= 400 && status < 500));

	memset(excerpt, 0x7f, sizeof(excerpt));
	push_reply__excerpt(&reply, excerpt, cap);
	CHECK(memchr(excerpt, '\0', cap));
	CHECK(strlen(excerpt) < cap && strlen(excerpt) <= PUSH_REPLY_EXCERPT);
	for (i = 0; excerpt[i]; i++)
		CHECK(excerpt[i] >= 0x20 && excerpt[i] < 0x7f);
	CHECK(excerpt[cap] == 0x7f);	/* nothing written past the buffer */
	return 0;
}
