/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A push's reply: the body is kept in memory up to PUSH_REPLY_MAX bytes (a
 * server that sends more has the transfer cut), never written anywhere;
 * of the headers, Retry-After and Content-Type, bounded. What is shown to
 * the user is one line of printable characters.
 */
#ifndef BPFPROF_PUSH_REPLY_H
#define BPFPROF_PUSH_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#define PUSH_REPLY_MAX		(64u << 10)
#define PUSH_REPLY_EXCERPT	160	/* bytes of the reply quoted in a message */
#define PUSH_REPLY_HEADER	64	/* bytes of a header value kept */

struct push_reply {
	char buf[PUSH_REPLY_MAX];
	size_t len;
	bool cut;			/* the server sent more than PUSH_REPLY_MAX */
	/* the last answer's (after a 100 Continue, the final one's); "" when
	 * absent or longer than PUSH_REPLY_HEADER - 1 bytes */
	char retry_after[PUSH_REPLY_HEADER];
	char content_type[PUSH_REPLY_HEADER];
};

void push_reply__reset(struct push_reply *r);

/* libcurl's write callback (userdata: the push_reply): returns nmemb
 * when taken, 0 once past the bound, which ends the transfer. */
size_t push_reply__write(char *data, size_t size, size_t nmemb, void *userdata);

/* libcurl's header callback (userdata: the push_reply): one header line
 * (or a status line, which starts an answer afresh) a call. */
size_t push_reply__header(char *data, size_t size, size_t nitems, void *userdata);

/* Whether the body is binary protobuf (Content-Type application/x-protobuf). */
bool push_reply__is_protobuf(const struct push_reply *r);

/* The reply's first line, control characters and non-ASCII bytes as '?',
 * at most PUSH_REPLY_EXCERPT bytes, "..." when cut; "" for no body. */
void push_reply__excerpt(const struct push_reply *r, char *buf, size_t size);

#endif
