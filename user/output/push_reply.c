// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A push's reply: bounded, in memory (push_reply.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "output/push_reply.h"

void push_reply__reset(struct push_reply *r)
{
	r->len = 0;
	r->cut = false;
	r->retry_after[0] = '\0';
	r->content_type[0] = '\0';
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

/* The value of header name in line (n bytes, "Name: value\r\n"), spaces
 * and the line's end trimmed, into out; "" when it is longer than out. */
static bool header_value(const char *line, size_t n, const char *name,
			 char out[PUSH_REPLY_HEADER])
{
	size_t nl = strlen(name), from, to;

	if (n <= nl || line[nl] != ':' || strncasecmp(line, name, nl))
		return false;
	for (from = nl + 1; from < n && (line[from] == ' ' || line[from] == '\t'); from++)
		;
	for (to = n; to > from && strchr(" \t\r\n", line[to - 1]); to--)
		;
	out[0] = '\0';
	if (to - from < PUSH_REPLY_HEADER && !memchr(line + from, '\0', to - from)) {
		memcpy(out, line + from, to - from);
		out[to - from] = '\0';
	}
	return true;
}

size_t push_reply__header(char *data, size_t size, size_t nitems, void *userdata)
{
	struct push_reply *r = userdata;
	size_t n = size * nitems;

	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {	/* a new answer */
		r->retry_after[0] = '\0';
		r->content_type[0] = '\0';
	} else if (!header_value(data, n, "Retry-After", r->retry_after)) {
		header_value(data, n, "Content-Type", r->content_type);
	}
	return n;
}

bool push_reply__is_protobuf(const struct push_reply *r)
{
	static const char type[] = "application/x-protobuf";
	size_t n = sizeof(type) - 1;

	/* parameters may follow: "application/x-protobuf; charset=..." */
	return !strncasecmp(r->content_type, type, n) &&
	       (!r->content_type[n] || r->content_type[n] == ';' || r->content_type[n] == ' ');
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
