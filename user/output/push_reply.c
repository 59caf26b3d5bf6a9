// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A push's reply: bounded, in memory, judged by its status. */
#include <stdio.h>
#include <string.h>

#include "output/push_reply.h"

void push_reply__reset(struct push_reply *r)
{
	r->len = 0;
	r->cut = false;
}

size_t push_reply__write(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct push_reply *r = userdata;
	size_t n = size * nmemb;	/* libcurl: size is 1, n at most CURL_MAX_WRITE_SIZE */

	if (r->cut || n > sizeof(r->buf) - r->len) {
		r->cut = true;
		return 0;
	}
	memcpy(r->buf + r->len, data, n);
	r->len += n;
	return nmemb;
}

enum push_verdict push_reply__judge(long status)
{
	if (status >= 200 && status < 300)
		return PUSH_SENT;
	/* a timeout or "too many requests" is worth another try */
	if (status >= 400 && status < 500 && status != 408 && status != 429)
		return PUSH_REFUSED;
	return PUSH_RETRY;
}

void push_reply__excerpt(const struct push_reply *r, char *buf, size_t size)
{
	size_t max, i, n = 0;

	if (!size)
		return;
	max = size - 1 < PUSH_REPLY_EXCERPT ? size - 1 : PUSH_REPLY_EXCERPT;
	for (i = 0; i < r->len && n < max; i++) {
		unsigned char c = (unsigned char)r->buf[i];

		if (c == '\n' || c == '\r')
			break;
		buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	buf[n] = '\0';
	if ((i < r->len && r->buf[i] != '\n' && r->buf[i] != '\r') || r->cut) {
		if (n + 3 > max)
			n = max >= 3 ? max - 3 : 0;
		snprintf(buf + n, size - n, "...");
	}
}
