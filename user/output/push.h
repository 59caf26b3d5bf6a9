/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shipping profiles to a Pyroscope server with its HTTP ingest API
 * (POST /ingest?name=APP{hostname=H}&from=&until=&format=&sampleRate=&spyName=),
 * through a bounded on-disk spool: every profile is spooled first and sent
 * oldest first, so a server that is away gets them all, in order, later.
 */
#ifndef BPFPROF_PUSH_H
#define BPFPROF_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct pusher;

struct push_opts {
	const char *url;		/* server base URL */
	const char *app;		/* application name */
	const char *host;		/* hostname label */
	const char *spool_dir;
	unsigned int spool_max;		/* profiles waiting, at most */
	unsigned int freq;		/* sampleRate */
};

struct push_stats {
	uint64_t sent;			/* accepted by the server (2xx) */
	uint64_t rejected;		/* refused with a 4xx: dropped, not retried */
	uint64_t dropped;		/* pushed out of a full spool */
	uint64_t failures;		/* attempts that failed and will be retried */
	size_t waiting;			/* in the spool now */
};

/* Returns 0 or -errno with a message printed. */
int pusher__new(const struct push_opts *o, struct pusher **out);
void pusher__free(struct pusher *ps);

/* Spools one interval's profile (fmt FORMAT_FOLDED or FORMAT_PPROF, the
 * interval as UNIX seconds), then sends what the spool holds, oldest
 * first, unless backing off after a failure. Never blocks for long: each
 * request has a timeout. Returns 0, or -errno when it could not be spooled. */
int pusher__submit(struct pusher *ps, const void *body, size_t len, enum out_format fmt,
		   int64_t from, int64_t until);

/* Sends what is waiting now, ignoring the backoff (at exit). */
void pusher__flush(struct pusher *ps);

void pusher__stats(const struct pusher *ps, struct push_stats *st);

#endif
