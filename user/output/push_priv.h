/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pusher's state (push.c's sender), shared with push_request.c's two
 * encoders. Not for other rooms: push.h is the interface. */
#ifndef BPFPROF_PUSH_PRIV_H
#define BPFPROF_PUSH_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "output/libcurl.h"
#include "output/otlp_headers.h"
#include "output/push.h"
#include "output/push_auth.h"
#include "output/spool.h"

#define ATTEMPT_MS	10000	/* one request, all of it: connect, send, reply */
#define CONNECT_MS	5000

struct pusher {
	struct push_opts o;
	const char *what;		/* "push" or "otlp": its messages' prefix */
	struct push_auth auth;		/* from --push-auth-file or the environment */
	char *bearer;			/* its "Authorization: Bearer" header */
	struct otlp_headers headers;	/* OTLP: from OTLP_HEADERS_ENV */
	char *endpoint;			/* OTLP: the URL posted to */
	char shown[1024];		/* the URL as printed: no credentials */
	void *gz;			/* OTLP: the request's body, compressed */
	struct spool *spool;
	CURL *curl;			/* the worker's */
	CURLM *multi;
	struct push_reply *reply;	/* the worker's */
	pthread_t thread;
	bool started;
	atomic_bool stop;		/* read by a transfer without the lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* work, stop, or the worker went idle */
	/* under lock */
	bool work;			/* the spool may hold something to send */
	bool flushing;			/* at exit: one try, whatever the backoff */
	bool idle;			/* the worker has nothing it may send now */
	bool failing;			/* said once when it starts, once when it ends */
	bool said_others;		/* that the spool holds files not bpfprof's */
	char sending[96];		/* on the wire: spared by the spool's bound */
	int64_t retry_at_ms;		/* monotonic; no attempt before (backoff) */
	int64_t asked_at_ms;		/* ... nor, even at exit, before a Retry-After's time */
	unsigned int failures_in_row;	/* since the server last took one */
	struct push_stats st;
};

/* The request of one spool item, its protocol's (Pyroscope's push or
 * ingest API, or OTLP/HTTP): URL, bounds, credentials, headers, body.
 * *hdrs is the caller's to free after the transfer. Returns 0 or -ENOMEM. */
int push_request__set(struct pusher *ps, const struct spool_item *it, const char *body,
		      size_t len, struct curl_slist **hdrs);

#endif
