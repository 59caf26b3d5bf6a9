/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A push's reply, judged: the body is kept in memory up to PUSH_REPLY_MAX
 * bytes (a server that sends more has the transfer cut), never written
 * anywhere; the verdict comes from the status, the excerpt shown to the
 * user is one line of printable characters.
 */
#ifndef BPFPROF_PUSH_REPLY_H
#define BPFPROF_PUSH_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#define PUSH_REPLY_MAX		(64u << 10)
#define PUSH_REPLY_EXCERPT	160	/* bytes of the reply quoted in a message */

struct push_reply {
	char buf[PUSH_REPLY_MAX];
	size_t len;
	bool cut;			/* the server sent more than PUSH_REPLY_MAX */
};

enum push_verdict {
	PUSH_SENT,			/* 2xx: the server has it */
	PUSH_REFUSED,			/* a 4xx other than 408 and 429: never retried */
	PUSH_RETRY,			/* no answer, 408, 429, 5xx or anything else */
};

void push_reply__reset(struct push_reply *r);

/* libcurl's write callback (userdata: the push_reply): returns nmemb
 * when taken, 0 once past the bound, which ends the transfer. */
size_t push_reply__write(char *data, size_t size, size_t nmemb, void *userdata);

/* status: the HTTP status, or <= 0 when no answer came. */
enum push_verdict push_reply__judge(long status);

/* The reply's first line, control characters and non-ASCII bytes as '?',
 * at most PUSH_REPLY_EXCERPT bytes, "..." when cut; "" for no body. */
void push_reply__excerpt(const struct push_reply *r, char *buf, size_t size);

#endif
